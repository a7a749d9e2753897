#include "compiler/transforms/SubsampleInput.h"

#include "compiler/transforms/KernelEdit.h"
#include "compiler/transforms/TransformErrors.h"

namespace nasc::compiler {

namespace {

/// A subsampled dimension of the load: its index is stride · iterator + constant.
struct Subsampled {
  size_t iterator = 0;
  int64_t stride = 0;
};

/// The subsampled form of index `e` of statement `st`, if it has one: exactly one iterator of
/// more than one value, with a coefficient above 1.
std::optional<Subsampled> subsampled(const ir::Statement &st, const ir::AffineExpr &e) {
  std::optional<Subsampled> found;
  for (size_t i = 0; i < e.coeffs.size(); ++i) {
    if (e.coeffs[i] == 0 || st.extents[i] == 1)
      continue;
    if (found)
      return std::nullopt;
    found = Subsampled{i, e.coeffs[i]};
  }
  return found && found->stride > 1 ? found : std::nullopt;
}

/// Why `st` is not a strided windowless convolution, or "" when it is.
std::string refusal(const ir::Statement &st) {
  if (std::string why = notInputProduct(st); !why.empty())
    return why;
  if (!st.constraints.empty())
    return "its domain is not a box (apply pad_input first)";
  for (const ir::AffineExpr &e : st.value.args[0].access.index)
    if (subsampled(st, e))
      return "";
  return "no index of its first load is stride · iterator + constant with stride > 1";
}

} // namespace

bool isStridedWindowlessConvolution(const ir::Kernel &kernel, const std::string &statement) {
  const ir::Statement *st = findStatement(kernel, statement);
  return st && refusal(*st).empty();
}

void subsampleInput(ir::Program &program, size_t call, const std::string &statement) {
  ir::Kernel &kernel = program.calls.at(call).kernel;
  const ir::Statement &found = requireStatement(kernel, statement, "subsample_input");
  if (std::string why = refusal(found); !why.empty())
    throw NotSubsampled("subsample_input: statement " + statement + " of kernel '" + kernel.name +
                        "' is not a strided windowless convolution: " + why);
  const ir::Access input = found.value.args[0].access;
  const ir::TensorDecl source = kernel.tensors.at(static_cast<size_t>(input.tensor));
  std::vector<std::optional<Subsampled>> dims;
  ir::Shape shape = source.shape;
  for (size_t d = 0; d < input.index.size(); ++d) {
    dims.push_back(subsampled(found, input.index[d]));
    if (dims.back())
      shape[d] = found.extents[dims.back()->iterator];
  }
  const int target = addTempTensor(program, call, source.name + "_subsampled", shape);

  ir::Statement copy = boxStatement(freshStatementName(kernel), shape, target,
                                    std::vector<int64_t>(shape.size(), 0));
  ir::Access read{input.tensor, {}};
  for (size_t d = 0; d < shape.size(); ++d) {
    const ir::AffineExpr j = ir::AffineExpr::iter(shape.size(), d);
    read.index.push_back(dims[d] ? j * dims[d]->stride + input.index[d].constant : j);
  }
  copy.value = ir::Expr::load(read);

  ir::Statement &st = *findStatement(kernel, statement);
  ir::Access &load = st.value.args[0].access;
  load.tensor = target;
  for (size_t d = 0; d < load.index.size(); ++d)
    if (dims[d])
      load.index[d] = ir::AffineExpr::iter(st.depth(), dims[d]->iterator);
  kernel.statements.insert(kernel.statements.begin(), std::move(copy));
}

} // namespace nasc::compiler
