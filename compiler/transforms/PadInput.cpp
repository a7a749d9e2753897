#include "compiler/transforms/PadInput.h"

#include "compiler/transforms/KernelEdit.h"
#include "compiler/transforms/TransformErrors.h"

#include <algorithm>

namespace nasc::compiler {

namespace {

/// Padding of one dimension of the padded load: before and after the tensor's extent.
struct Padding {
  int64_t before = 0, after = 0;
};

bool sameExpr(const ir::AffineExpr &a, const ir::AffineExpr &b) {
  return a.coeffs == b.coeffs && a.constant == b.constant;
}

/// The range [lo, hi] of `e` over the box 0 <= it_i < extents_i.
std::pair<int64_t, int64_t> range(const ir::AffineExpr &e, const std::vector<int64_t> &extents) {
  int64_t lo = e.constant, hi = e.constant;
  for (size_t i = 0; i < e.coeffs.size(); ++i) {
    const int64_t span = e.coeffs[i] * (extents[i] - 1);
    lo += std::min<int64_t>(0, span);
    hi += std::max<int64_t>(0, span);
  }
  return {lo, hi};
}

/// Whether constraint `c` is `index >= 0` or `extent − 1 − index >= 0` of some dimension.
bool isInputBound(const ir::Constraint &c, const ir::Access &load, const ir::Shape &shape) {
  for (size_t d = 0; d < load.index.size(); ++d)
    if (!c.equality &&
        (sameExpr(c.expr, load.index[d]) || sameExpr(c.expr, load.index[d] * -1 + (shape[d] - 1))))
      return true;
  return false;
}

/// Why `st` is not a zero-padded convolution, or "" when it is.
std::string refusal(const ir::Kernel &kernel, const ir::Statement &st) {
  if (st.update != ir::Update::Add || st.value.op != ir::Expr::Op::Mul ||
      st.value.args.at(0).op != ir::Expr::Op::Load)
    return "it is not an Add update of a product of a load (W += I · ...)";
  if (st.constraints.empty())
    return "its domain is already a box (no padding is excluded)";
  const ir::Access &load = st.value.args[0].access;
  const ir::Shape &shape = kernel.tensors.at(static_cast<size_t>(load.tensor)).shape;
  for (const ir::Constraint &c : st.constraints)
    if (!isInputBound(c, load, shape))
      return "its constraint " + c.expr.toString(st.iterators) +
             " >= 0 is not a bound of its first load";
  return "";
}

} // namespace

bool isZeroPaddedConvolution(const ir::Kernel &kernel, const std::string &statement) {
  const ir::Statement *st = findStatement(kernel, statement);
  return st && refusal(kernel, *st).empty();
}

void padInput(ir::Program &program, size_t call, const std::string &statement) {
  ir::KernelCall &kc = program.calls.at(call);
  ir::Kernel &kernel = kc.kernel;
  const ir::Statement *found = findStatement(kernel, statement);
  if (!found)
    throw UnknownStatement("pad_input: kernel '" + kernel.name + "' has no statement '" +
                           statement + "'");
  if (std::string why = refusal(kernel, *found); !why.empty())
    throw NotZeroPadded("pad_input: statement " + statement + " of kernel '" + kernel.name +
                        "' is not a zero-padded convolution: " + why);
  const ir::Access input = found->value.args[0].access;
  const ir::TensorDecl source = kernel.tensors.at(static_cast<size_t>(input.tensor));
  std::vector<int64_t> before;
  ir::Shape padded;
  for (size_t d = 0; d < input.index.size(); ++d) {
    const auto [lo, hi] = range(input.index[d], found->extents);
    before.push_back(std::max<int64_t>(0, -lo));
    padded.push_back(source.shape[d] + before.back() +
                     std::max<int64_t>(0, hi - (source.shape[d] - 1)));
  }
  const int target = addTempTensor(program, call, source.name + "_padded", padded);

  ir::Statement fill = boxStatement(freshStatementName(kernel), padded, target,
                                    std::vector<int64_t>(padded.size(), 0));
  fill.value = ir::Expr::constant(0.0f);
  ir::Statement copy = boxStatement(freshStatementName(kernel, 1), source.shape, target, before);
  ir::Access read{input.tensor, {}};
  for (size_t d = 0; d < source.shape.size(); ++d)
    read.index.push_back(ir::AffineExpr::iter(source.shape.size(), d));
  copy.value = ir::Expr::load(read);

  ir::Statement &st = *findStatement(kernel, statement);
  ir::Access &load = st.value.args[0].access;
  load.tensor = target;
  for (size_t d = 0; d < load.index.size(); ++d)
    load.index[d] = load.index[d] + before[d];
  st.constraints.clear();
  kernel.statements.insert(kernel.statements.begin(), {std::move(fill), std::move(copy)});
}

} // namespace nasc::compiler
