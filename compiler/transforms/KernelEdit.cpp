#include "compiler/transforms/KernelEdit.h"

#include "compiler/transforms/TransformErrors.h"
#include "ir/Error.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace nasc::compiler {

const ir::Statement *findStatement(const ir::Kernel &kernel, const std::string &name) {
  auto it = std::find_if(kernel.statements.begin(), kernel.statements.end(),
                         [&](const ir::Statement &st) { return st.name == name; });
  return it == kernel.statements.end() ? nullptr : &*it;
}

ir::Statement *findStatement(ir::Kernel &kernel, const std::string &name) {
  return const_cast<ir::Statement *>(findStatement(std::as_const(kernel), name));
}

const ir::Statement &requireStatement(const ir::Kernel &kernel, const std::string &name,
                                      const std::string &primitive) {
  const ir::Statement *st = findStatement(kernel, name);
  if (!st)
    throw UnknownStatement(primitive + ": kernel '" + kernel.name + "' has no statement '" + name +
                           "'");
  return *st;
}

std::string notInputProduct(const ir::Statement &st) {
  if (st.update != ir::Update::Add || st.value.op != ir::Expr::Op::Mul ||
      st.value.args.at(0).op != ir::Expr::Op::Load)
    return "it is not an Add update of a product of a load (W += I · ...)";
  return "";
}

std::string freshTensorName(const ir::Program &program, const ir::Kernel &kernel,
                            const std::string &base) {
  auto used = [&](const std::string &name) {
    return std::any_of(program.buffers.begin(), program.buffers.end(),
                       [&](const ir::Buffer &b) { return b.name == name; }) ||
           std::any_of(kernel.tensors.begin(), kernel.tensors.end(),
                       [&](const ir::TensorDecl &t) { return t.name == name; });
  };
  std::string name = base;
  for (int k = 1; used(name); ++k)
    name = base + "_" + std::to_string(k);
  return name;
}

int addTempTensor(ir::Program &program, size_t call, const std::string &base,
                  const ir::Shape &shape) {
  ir::KernelCall &kc = program.calls.at(call);
  const std::string name = freshTensorName(program, kc.kernel, base);
  program.buffers.push_back({name, shape, ir::BufferKind::Temp, {}});
  kc.args.push_back(static_cast<int>(program.buffers.size()) - 1);
  kc.kernel.tensors.push_back({name, shape});
  return static_cast<int>(kc.kernel.tensors.size()) - 1;
}

std::string freshStatementName(const ir::Kernel &kernel, size_t skip) {
  for (size_t k = kernel.statements.size() + skip;; ++k)
    if (!findStatement(kernel, "P" + std::to_string(k)))
      return "P" + std::to_string(k);
}

ir::Statement boxStatement(const std::string &name, const ir::Shape &shape, int tensor,
                           const std::vector<int64_t> &offset) {
  ir::Statement st;
  st.name = name;
  st.extents = shape;
  st.reduction.assign(shape.size(), false);
  st.write.tensor = tensor;
  for (size_t d = 0; d < shape.size(); ++d) {
    st.iterators.push_back("d" + std::to_string(d));
    st.write.index.push_back(ir::AffineExpr::iter(shape.size(), d) + offset[d]);
  }
  return st;
}

int plainIterator(const ir::AffineExpr &e) {
  int found = -1;
  for (size_t i = 0; i < e.coeffs.size(); ++i) {
    if (e.coeffs[i] == 0)
      continue;
    if (e.coeffs[i] != 1 || found >= 0)
      return -1;
    found = static_cast<int>(i);
  }
  return e.constant == 0 ? found : -1;
}

namespace {

/// `e` over the iterators after a split: coefficient a of d becomes factor·a on `outer` and
/// a on `inner`; `position[i]` is where old iterator i went.
ir::AffineExpr remap(const ir::AffineExpr &e, const std::vector<size_t> &position, size_t d,
                     const SplitIterators &split, int64_t factor) {
  ir::AffineExpr out = ir::AffineExpr::constant_(position.size() + 1, e.constant);
  for (size_t i = 0; i < e.coeffs.size(); ++i)
    if (i == d) {
      out.coeffs[split.outer] = factor * e.coeffs[i];
      out.coeffs[split.inner] = e.coeffs[i];
    } else {
      out.coeffs[position[i]] = e.coeffs[i];
    }
  return out;
}

/// Applies `f` to every affine expression of `st` (its accesses and constraints).
void forEachAffine(ir::Statement &st, const std::function<void(ir::AffineExpr &)> &f) {
  for (ir::Constraint &c : st.constraints)
    f(c.expr);
  forEachAccess(st, [&](ir::Access &a) {
    for (ir::AffineExpr &e : a.index)
      f(e);
  });
}

/// Erases iterator `d` of `st` (its name, extent, reduction flag and coefficients).
void eraseIterator(ir::Statement &st, size_t d) {
  const auto at = static_cast<std::ptrdiff_t>(d);
  st.iterators.erase(st.iterators.begin() + at);
  st.extents.erase(st.extents.begin() + at);
  st.reduction.erase(st.reduction.begin() + at);
  forEachAffine(st, [&](ir::AffineExpr &e) { e.coeffs.erase(e.coeffs.begin() + at); });
}

std::string partName(const std::string &name, int part) {
  const bool digit = !name.empty() && std::isdigit(static_cast<unsigned char>(name.back()));
  return name + (digit ? "_" : "") + std::to_string(part);
}

} // namespace

void forEachAccess(ir::Statement &st, const std::function<void(ir::Access &)> &visit) {
  visit(st.write);
  ir::forEachLoad(st.value, visit);
}

void forEachAccess(const ir::Statement &st, const std::function<void(const ir::Access &)> &visit) {
  visit(st.write);
  ir::forEachLoad(st.value, visit);
}

bool accessesTensor(const ir::Statement &st, int tensor) {
  bool found = false;
  forEachAccess(st, [&](const ir::Access &a) { found = found || a.tensor == tensor; });
  return found;
}

int tensorOf(const ir::KernelCall &call, int buffer) {
  auto it = std::find(call.args.begin(), call.args.end(), buffer);
  return it == call.args.end() ? -1 : static_cast<int>(it - call.args.begin());
}

void unbind(ir::KernelCall &call, int t) {
  call.kernel.tensors.erase(call.kernel.tensors.begin() + t);
  call.args.erase(call.args.begin() + t);
  for (ir::Statement &st : call.kernel.statements)
    forEachAccess(st, [&](ir::Access &a) {
      if (a.tensor > t)
        --a.tensor;
    });
}

SplitIterators splitIterator(ir::Statement &st, size_t d, int64_t factor,
                             std::optional<size_t> innerAfter) {
  const bool reduction = d < st.reduction.size() && st.reduction[d];
  size_t after = d;
  for (size_t i = d + 1; i < st.depth(); ++i)
    if ((i < st.reduction.size() && st.reduction[i]) == reduction)
      after = i;
  after = innerAfter.value_or(after);
  // Old iterator i keeps its place up to `after` and moves one right beyond it.
  std::vector<size_t> position(st.depth());
  for (size_t i = 0; i < st.depth(); ++i)
    position[i] = i <= after ? i : i + 1;
  const SplitIterators split{d, after + 1};

  std::vector<std::string> iterators(st.depth() + 1);
  std::vector<int64_t> extents(st.depth() + 1);
  std::vector<bool> reductions(st.depth() + 1, false);
  for (size_t i = 0; i < st.depth(); ++i) {
    iterators[position[i]] = st.iterators[i];
    extents[position[i]] = st.extents[i];
    reductions[position[i]] = i < st.reduction.size() && st.reduction[i];
  }
  iterators[split.outer] = partName(st.iterators[d], 0);
  iterators[split.inner] = partName(st.iterators[d], 1);
  extents[split.outer] = st.extents[d] / factor;
  extents[split.inner] = factor;
  reductions[split.inner] = reduction;

  for (ir::Constraint &c : st.constraints)
    c.expr = remap(c.expr, position, d, split, factor);
  forEachAccess(st, [&](ir::Access &a) {
    for (ir::AffineExpr &e : a.index)
      e = remap(e, position, d, split, factor);
  });
  st.iterators = std::move(iterators);
  st.extents = std::move(extents);
  st.reduction = std::move(reductions);
  return split;
}

void removeUnitIterator(ir::Statement &st, size_t d) {
  if (st.extents.at(d) != 1)
    throw Error("removeUnitIterator: iterator " + st.iterators[d] + " of statement " + st.name +
                " runs over " + std::to_string(st.extents[d]) + " values, not one");
  eraseIterator(st, d);
}

bool mergeIterators(ir::Statement &st, size_t outer, size_t inner, const std::string &name) {
  const int64_t e = st.extents.at(inner);
  bool combined = st.reduction.at(outer) == st.reduction.at(inner);
  forEachAffine(st, [&](ir::AffineExpr &x) {
    combined = combined && x.coeffs[outer] == e * x.coeffs[inner];
  });
  if (!combined)
    return false;
  forEachAffine(st, [&](ir::AffineExpr &x) { x.coeffs[outer] = x.coeffs[inner]; });
  st.extents[outer] *= e;
  st.iterators[outer] = name;
  eraseIterator(st, inner);
  return true;
}

} // namespace nasc::compiler
