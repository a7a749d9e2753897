#include "compiler/transforms/ForwardBlocked.h"

#include "compiler/transforms/KernelEdit.h"

#include <algorithm>
#include <optional>

namespace nasc::compiler {

namespace {

/// A copy-out statement T[e0, x·a + b, e2, e3] = T'[e0, a, e2, e3, b] of kernel tensors
/// `out` (T) and `blocked` (T').
struct CopyOut {
  size_t statement = 0;
  int out = -1, blocked = -1;
  int64_t block = 0;
};

/// The iterators (a, b) of a channel index x·a + b with b < x, if `e` is one.
std::optional<std::pair<size_t, size_t>> splitChannel(const ir::Statement &st,
                                                      const ir::AffineExpr &e, int64_t x) {
  if (e.constant != 0)
    return std::nullopt;
  std::optional<size_t> a, b;
  for (size_t i = 0; i < e.coeffs.size(); ++i) {
    if (e.coeffs[i] == 0)
      continue;
    if (e.coeffs[i] == x && !a)
      a = i;
    else if (e.coeffs[i] == 1 && !b && st.extents[i] == x)
      b = i;
    else
      return std::nullopt;
  }
  if (!a || !b)
    return std::nullopt;
  return std::make_pair(*a, *b);
}

std::optional<CopyOut> matchCopyOut(const ir::Kernel &kernel, size_t s) {
  const ir::Statement &st = kernel.statements[s];
  if (st.update != ir::Update::Assign || st.value.op != ir::Expr::Op::Load ||
      st.write.index.size() != 4 || st.value.access.index.size() != 5)
    return std::nullopt;
  const ir::Access &w = st.write, &r = st.value.access;
  const int64_t x = kernel.tensors.at(static_cast<size_t>(r.tensor)).shape[4];
  auto channel = splitChannel(st, w.index[1], x);
  if (!channel || plainIterator(r.index[1]) != static_cast<int>(channel->first) ||
      plainIterator(r.index[4]) != static_cast<int>(channel->second))
    return std::nullopt;
  for (size_t d : {0, 2, 3})
    if (r.index[d].coeffs != w.index[d].coeffs || r.index[d].constant != w.index[d].constant)
      return std::nullopt;
  return CopyOut{s, w.tensor, r.tensor, x};
}

/// Whether every access of `call` to its tensor `t` only reads it with channels x·a + b.
bool readsBlockable(const ir::KernelCall &call, int t, int64_t x) {
  for (const ir::Statement &st : call.kernel.statements) {
    if (st.write.tensor == t)
      return false;
    bool ok = true;
    forEachAccess(st, [&](const ir::Access &a) {
      ok = ok && (a.tensor != t || (a.index.size() == 4 && splitChannel(st, a.index[1], x)));
    });
    if (!ok)
      return false;
  }
  return true;
}

/// Rewrites `call`'s reads of its tensor `t` to the blocked tensor `blocked`.
void readBlocked(ir::KernelCall &call, int t, int blocked) {
  for (ir::Statement &st : call.kernel.statements) {
    const ir::Statement before = st;
    const int64_t x = call.kernel.tensors.at(static_cast<size_t>(blocked)).shape[4];
    forEachAccess(st, [&](ir::Access &a) {
      if (a.tensor != t)
        return;
      const auto [outer, inner] = *splitChannel(before, a.index[1], x);
      a.tensor = blocked;
      a.index[1] = ir::AffineExpr::iter(before.depth(), outer);
      a.index.push_back(ir::AffineExpr::iter(before.depth(), inner));
    });
  }
}

/// Whether the copy `copy` of call `c` can be dropped: O a Temp written by this statement only.
bool forwardable(const ir::Program &program, size_t c, const CopyOut &copy) {
  const ir::KernelCall &call = program.calls[c];
  const int buffer = call.args[static_cast<size_t>(copy.out)];
  if (program.buffers[static_cast<size_t>(buffer)].kind != ir::BufferKind::Temp)
    return false;
  for (size_t s = 0; s < call.kernel.statements.size(); ++s)
    if (s != copy.statement && accessesTensor(call.kernel.statements[s], copy.out))
      return false;
  for (size_t other = 0; other < program.calls.size(); ++other) {
    const int t = tensorOf(program.calls[other], buffer);
    if (other != c && t >= 0 && (other < c || !readsBlockable(program.calls[other], t, copy.block)))
      return false;
  }
  return true;
}

/// Whether statement `st` of `kernel` copies tensor `from` unchanged into another tensor over
/// the whole of both (T'[i0, .., in] = T[i0, .., in], the box of T's shape).
bool isIdentityCopy(const ir::Kernel &kernel, const ir::Statement &st, int from) {
  if (st.update != ir::Update::Assign || st.value.op != ir::Expr::Op::Load ||
      st.value.access.tensor != from || st.write.tensor == from || !st.constraints.empty())
    return false;
  const ir::Shape &shape = kernel.tensors.at(static_cast<size_t>(from)).shape;
  if (kernel.tensors.at(static_cast<size_t>(st.write.tensor)).shape != shape ||
      st.extents != shape || st.write.index.size() != shape.size() ||
      st.value.access.index.size() != shape.size())
    return false;
  for (size_t d = 0; d < shape.size(); ++d)
    if (plainIterator(st.write.index[d]) != static_cast<int>(d) ||
        plainIterator(st.value.access.index[d]) != static_cast<int>(d))
      return false;
  return true;
}

/// Whether kernel tensor `t` of call `c` is a Temp that only statement `s` of it accesses and
/// no other call binds.
bool privateTo(const ir::Program &program, size_t c, size_t s, int t) {
  const ir::KernelCall &call = program.calls[c];
  const int buffer = call.args[static_cast<size_t>(t)];
  if (program.buffers[static_cast<size_t>(buffer)].kind != ir::BufferKind::Temp)
    return false;
  for (size_t i = 0; i < call.kernel.statements.size(); ++i)
    if (i != s && call.kernel.statements[i].write.tensor == t)
      return false;
  for (size_t other = 0; other < program.calls.size(); ++other)
    if (other != c && tensorOf(program.calls[other], buffer) >= 0)
      return false;
  return true;
}

/// The first statement of call `c` that copies its tensor `from` unchanged into a tensor
/// private to it (isIdentityCopy, privateTo), if any.
std::optional<size_t> identityCopyOf(const ir::Program &program, size_t c, int from) {
  const ir::Kernel &kernel = program.calls[c].kernel;
  for (size_t s = 0; s < kernel.statements.size(); ++s)
    if (isIdentityCopy(kernel, kernel.statements[s], from) &&
        privateTo(program, c, s, kernel.statements[s].write.tensor))
      return s;
  return std::nullopt;
}

/// Drops the statements of call `c` that copy its tensor `from` unchanged into a tensor of its
/// own (the pack copy of a blocked conv without padding, once it reads a forwarded blocked
/// tensor); its loads of such a copy read `from` instead.
void dropIdentityCopies(ir::Program &program, size_t c, int from) {
  ir::Kernel &kernel = program.calls[c].kernel;
  while (std::optional<size_t> s = identityCopyOf(program, c, from)) {
    const int copy = kernel.statements[*s].write.tensor;
    kernel.statements.erase(kernel.statements.begin() + static_cast<std::ptrdiff_t>(*s));
    for (ir::Statement &st : kernel.statements)
      forEachAccess(st, [&](ir::Access &a) {
        if (a.tensor == copy)
          a.tensor = from;
      });
    unbind(program.calls[c], copy);
    from -= copy < from ? 1 : 0;
  }
}

void forward(ir::Program &program, size_t c, const CopyOut &copy) {
  ir::KernelCall &call = program.calls[c];
  const int buffer = call.args[static_cast<size_t>(copy.out)];
  const int blockedBuffer = call.args[static_cast<size_t>(copy.blocked)];
  call.kernel.statements.erase(call.kernel.statements.begin() +
                               static_cast<std::ptrdiff_t>(copy.statement));
  unbind(call, copy.out);
  for (size_t other = c + 1; other < program.calls.size(); ++other) {
    ir::KernelCall &reader = program.calls[other];
    const int t = tensorOf(reader, buffer);
    if (t < 0)
      continue;
    reader.kernel.tensors.push_back({program.buffers[static_cast<size_t>(blockedBuffer)].name,
                                     program.buffers[static_cast<size_t>(blockedBuffer)].shape});
    reader.args.push_back(blockedBuffer);
    readBlocked(reader, t, static_cast<int>(reader.args.size()) - 1);
    unbind(reader, t);
    dropIdentityCopies(program, other, static_cast<int>(reader.args.size()) - 1);
  }
}

} // namespace

int forwardBlockedLayouts(ir::Program &program) {
  int removed = 0;
  for (size_t c = 0; c < program.calls.size(); ++c) {
    const ir::Kernel &kernel = program.calls[c].kernel;
    for (size_t s = 0; s < kernel.statements.size(); ++s) {
      std::optional<CopyOut> copy = matchCopyOut(kernel, s);
      if (copy && forwardable(program, c, *copy)) {
        forward(program, c, *copy);
        ++removed;
        break;
      }
    }
  }
  return removed;
}

int64_t copiedOutBlock(const ir::Program &program, size_t c, int t) {
  const int buffer = program.calls.at(c).args.at(static_cast<size_t>(t));
  for (size_t other = 0; other < c; ++other) {
    const ir::Kernel &kernel = program.calls[other].kernel;
    const int written = tensorOf(program.calls[other], buffer);
    for (size_t s = 0; written >= 0 && s < kernel.statements.size(); ++s)
      if (std::optional<CopyOut> copy = matchCopyOut(kernel, s); copy && copy->out == written)
        return copy->block;
  }
  return 0;
}

} // namespace nasc::compiler
