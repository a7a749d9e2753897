#include "compiler/transforms/ForwardPadded.h"

#include "compiler/transforms/KernelEdit.h"

#include <optional>

namespace nasc::compiler {

namespace {

/// A pad copy T_p[i + before] = T[i] over the box of T's shape: statement `statement` of a
/// kernel, kernel tensors `source` (T) and `padded` (T_p).
struct PadCopy {
  size_t statement = 0;
  int source = -1, padded = -1;
  std::vector<int64_t> before;
};

/// `e` without its constant, and the constant.
std::pair<ir::AffineExpr, int64_t> splitConstant(ir::AffineExpr e) {
  const int64_t constant = e.constant;
  e.constant = 0;
  return {e, constant};
}

std::optional<PadCopy> matchPadCopy(const ir::Kernel &kernel, size_t s) {
  const ir::Statement &st = kernel.statements[s];
  if (st.update != ir::Update::Assign || st.value.op != ir::Expr::Op::Load ||
      !st.constraints.empty() || st.write.tensor == st.value.access.tensor)
    return std::nullopt;
  const ir::Access &w = st.write, &r = st.value.access;
  const ir::Shape &shape = kernel.tensors.at(static_cast<size_t>(r.tensor)).shape;
  const ir::Shape &padded = kernel.tensors.at(static_cast<size_t>(w.tensor)).shape;
  if (padded == shape || st.extents != shape || padded.size() != shape.size() ||
      w.index.size() != shape.size() || r.index.size() != shape.size())
    return std::nullopt;
  PadCopy copy{s, r.tensor, w.tensor, {}};
  for (size_t d = 0; d < shape.size(); ++d) {
    const auto [offsetFree, offset] = splitConstant(w.index[d]);
    if (plainIterator(r.index[d]) != static_cast<int>(d) ||
        plainIterator(offsetFree) != static_cast<int>(d) || offset < 0 ||
        offset + shape[d] > padded[d])
      return std::nullopt;
    copy.before.push_back(offset);
  }
  return copy;
}

/// Whether statement `st` may write inside the box [before, before + shape) of its tensor: its
/// write's index range over the statement's box meets the box in every dimension (an index
/// other than iterator + constant counts as meeting it).
bool writesInside(const ir::Statement &st, const std::vector<int64_t> &before,
                  const ir::Shape &shape) {
  for (size_t d = 0; d < shape.size(); ++d) {
    const auto [offsetFree, offset] = splitConstant(st.write.index.at(d));
    const int it = plainIterator(offsetFree);
    if (it < 0)
      return true;
    const int64_t last = offset + st.extents[static_cast<size_t>(it)] - 1;
    if (last < before[d] || offset >= before[d] + shape[d])
      return false;
  }
  return true;
}

/// The one call writing program buffer `buffer`, if exactly one does and no call binds it
/// before that one.
std::optional<size_t> soleWriter(const ir::Program &program, int buffer) {
  std::optional<size_t> writer;
  for (size_t c = 0; c < program.calls.size(); ++c) {
    const int t = tensorOf(program.calls[c], buffer);
    if (t < 0)
      continue;
    bool writes = false;
    for (const ir::Statement &st : program.calls[c].kernel.statements)
      writes = writes || st.write.tensor == t;
    if (!writer && !writes)
      return std::nullopt;
    if (writes && writer)
      return std::nullopt;
    if (writes)
      writer = c;
  }
  return writer;
}

/// Whether the copy `copy` of call `k` can be dropped (the conditions of forwardPaddedInputs).
bool forwardable(const ir::Program &program, size_t k, const PadCopy &copy) {
  const ir::KernelCall &call = program.calls[k];
  const int source = call.args[static_cast<size_t>(copy.source)];
  const int padded = call.args[static_cast<size_t>(copy.padded)];
  if (program.buffers[static_cast<size_t>(source)].kind != ir::BufferKind::Temp ||
      program.buffers[static_cast<size_t>(padded)].kind != ir::BufferKind::Temp)
    return false;
  for (size_t other = 0; other < program.calls.size(); ++other)
    if (other != k && tensorOf(program.calls[other], padded) >= 0)
      return false;
  const ir::Shape &shape = call.kernel.tensors[static_cast<size_t>(copy.source)].shape;
  for (size_t s = 0; s < call.kernel.statements.size(); ++s) {
    const ir::Statement &st = call.kernel.statements[s];
    if (s != copy.statement && st.write.tensor == copy.padded &&
        writesInside(st, copy.before, shape))
      return false;
  }
  const std::optional<size_t> writer = soleWriter(program, source);
  return writer && *writer < k;
}

/// Makes every access of `call` to its tensor `t` access its tensor `padded` at the index
/// shifted by `before`.
void shiftInto(ir::KernelCall &call, int t, int padded, const std::vector<int64_t> &before) {
  for (ir::Statement &st : call.kernel.statements)
    forEachAccess(st, [&](ir::Access &a) {
      if (a.tensor != t)
        return;
      a.tensor = padded;
      for (size_t d = 0; d < a.index.size(); ++d)
        a.index[d] = a.index[d] + before[d];
    });
}

void forward(ir::Program &program, size_t k, const PadCopy &copy) {
  ir::KernelCall &call = program.calls[k];
  const int source = call.args[static_cast<size_t>(copy.source)];
  const int padded = call.args[static_cast<size_t>(copy.padded)];
  call.kernel.statements.erase(call.kernel.statements.begin() +
                               static_cast<std::ptrdiff_t>(copy.statement));
  const ir::Buffer &buffer = program.buffers[static_cast<size_t>(padded)];
  for (ir::KernelCall &other : program.calls) {
    const int t = tensorOf(other, source);
    if (t < 0)
      continue;
    int target = tensorOf(other, padded);
    if (target < 0) {
      other.kernel.tensors.push_back({buffer.name, buffer.shape});
      other.args.push_back(padded);
      target = static_cast<int>(other.args.size()) - 1;
    }
    shiftInto(other, t, target, copy.before);
    unbind(other, t);
  }
}

} // namespace

int forwardPaddedInputs(ir::Program &program) {
  int removed = 0;
  for (size_t k = 0; k < program.calls.size(); ++k) {
    const ir::Kernel &kernel = program.calls[k].kernel;
    for (size_t s = 0; s < kernel.statements.size(); ++s) {
      std::optional<PadCopy> copy = matchPadCopy(kernel, s);
      if (copy && forwardable(program, k, *copy)) {
        forward(program, k, *copy);
        ++removed;
        break;
      }
    }
  }
  return removed;
}

} // namespace nasc::compiler
