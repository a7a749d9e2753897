#include "compiler/transforms/PadInput.h"

#include "compiler/transforms/KernelEdit.h"
#include "compiler/transforms/TransformErrors.h"

#include <algorithm>
#include <iterator>
#include <utility>

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
  if (std::string why = notInputProduct(st); !why.empty())
    return why;
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

/// The statements writing 0 into the halo of kernel tensor `target` (shape `padded`) around
/// its box of shape `inner` at offset `before`: per dimension d, the slab before the box along
/// d and the one after it, each over the box along the dimensions before d and over all of
/// `padded` along those after d, so that each halo element is written once and the box not
/// at all (the copy of the input writes it).
std::vector<ir::Statement> haloFills(const ir::Kernel &kernel, int target, const ir::Shape &padded,
                                     const ir::Shape &inner, const std::vector<int64_t> &before) {
  std::vector<ir::Statement> fills;
  for (size_t d = 0; d < padded.size(); ++d) {
    const int64_t afterBegin = before[d] + inner[d];
    for (const auto &[begin, extent] :
         {std::pair{int64_t{0}, before[d]}, std::pair{afterBegin, padded[d] - afterBegin}}) {
      if (extent == 0)
        continue;
      ir::Shape extents;
      std::vector<int64_t> offset;
      for (size_t i = 0; i < padded.size(); ++i) {
        extents.push_back(i < d ? inner[i] : i == d ? extent : padded[i]);
        offset.push_back(i < d ? before[i] : i == d ? begin : 0);
      }
      ir::Statement fill =
          boxStatement(freshStatementName(kernel, fills.size()), extents, target, offset);
      fill.value = ir::Expr::constant(0.0f);
      fills.push_back(std::move(fill));
    }
  }
  return fills;
}

} // namespace

bool isZeroPaddedConvolution(const ir::Kernel &kernel, const std::string &statement) {
  const ir::Statement *st = findStatement(kernel, statement);
  return st && refusal(kernel, *st).empty();
}

void padInput(ir::Program &program, size_t call, const std::string &statement) {
  ir::KernelCall &kc = program.calls.at(call);
  ir::Kernel &kernel = kc.kernel;
  const ir::Statement &found = requireStatement(kernel, statement, "pad_input");
  if (std::string why = refusal(kernel, found); !why.empty())
    throw NotZeroPadded("pad_input: statement " + statement + " of kernel '" + kernel.name +
                        "' is not a zero-padded convolution: " + why);
  const ir::Access input = found.value.args[0].access;
  const ir::TensorDecl source = kernel.tensors.at(static_cast<size_t>(input.tensor));
  std::vector<int64_t> before;
  ir::Shape padded;
  for (size_t d = 0; d < input.index.size(); ++d) {
    const auto [lo, hi] = range(input.index[d], found.extents);
    before.push_back(std::max<int64_t>(0, -lo));
    padded.push_back(source.shape[d] + before.back() +
                     std::max<int64_t>(0, hi - (source.shape[d] - 1)));
  }
  const int target = addTempTensor(program, call, source.name + "_padded", padded);

  std::vector<ir::Statement> added = haloFills(kernel, target, padded, source.shape, before);
  ir::Statement copy =
      boxStatement(freshStatementName(kernel, added.size()), source.shape, target, before);
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
  added.push_back(std::move(copy));
  kernel.statements.insert(kernel.statements.begin(), std::make_move_iterator(added.begin()),
                           std::make_move_iterator(added.end()));
}

} // namespace nasc::compiler
