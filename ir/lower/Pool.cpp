// MaxPool and AveragePool (ONNX, any number of spatial axes): reductions over the in-bounds part
// of each window; the average multiplies the window sum by a constant table of reciprocal counts.
#include "ir/Error.h"
#include "ir/lower/Ops.h"
#include "ir/lower/Statements.h"
#include "ir/lower/Window.h"

#include <limits>

namespace nasc::ir::lower {

namespace {

/// Shapes and window geometry of one pooling node (X N×C×D1×..., Y N×C×O1×...).
struct PoolShape {
  Shape out;                     ///< N, C, O1, O2, ...
  std::vector<WindowDim> window; ///< One per spatial axis.
  size_t rank() const { return window.size(); }
};

PoolShape poolShape(const LowerContext &ctx, const Node &node) {
  if (node.inputs.empty() || node.outputs.empty())
    throw Error(ctx.where(node, "needs an input and an output"));
  if (node.outputs.size() > 1 && !node.outputs[1].empty())
    throw Error(ctx.where(node, "the Indices output is not supported"));
  const Shape &x = ctx.shape(node.inputs[0]);
  const Shape &y = ctx.shape(node.outputs[0]);
  if (x.size() < 3 || y.size() != x.size() || y[0] != x[0] || y[1] != x[1])
    throw Error(ctx.where(node, "X " + shapeToString(x) + " and Y " + shapeToString(y) +
                                    " must be N×C×D1×... with the same N, C and rank >= 3"));
  Shape kernel = node.getInts("kernel_shape", {});
  if (kernel.size() != x.size() - 2)
    throw Error(ctx.where(node, "attribute 'kernel_shape' must have " +
                                    std::to_string(x.size() - 2) + " values"));
  if (node.getInt("storage_order", 0) != 0)
    throw Error(ctx.where(node, "attribute 'storage_order': only 0 is supported"));
  bool ceilMode = node.getInt("ceil_mode", 0) != 0;
  return {y, windowDims(ctx.where(node), node, spatialDims(x), kernel, spatialDims(y), ceilMode)};
}

/// Iterators n, c and the output positions, then `extra` (kernel offsets) with their extents.
Statement poolStatement(const PoolShape &p, const std::vector<std::string> &extra,
                        const Shape &extraExtents) {
  std::vector<std::string> iterators{"n", "c"};
  for (const std::string &name : outputIterators(p.rank()))
    iterators.push_back(name);
  iterators.insert(iterators.end(), extra.begin(), extra.end());
  Shape extents = p.out;
  extents.insert(extents.end(), extraExtents.begin(), extraExtents.end());
  return makeStatement(std::move(iterators), std::move(extents));
}

/// O[n,c,o...] = value.
Statement initStatement(const PoolShape &p, int out, float value) {
  Statement st = poolStatement(p, {}, {});
  st.write = iterAccess(out, st, 0, p.out.size());
  st.value = Expr::constant(value);
  return st;
}

/// O[n,c,o...] (update)= I[n, c, o_i·stride_i + k_i·dilation_i − padBegin_i ...] over the
/// in-bounds window positions k (2-d: I[n, c, oh·sh + r·dh − pt, ow·sw + s·dw − pl]).
Statement windowStatement(const PoolShape &p, int in, int out, Update update) {
  Shape kernel;
  for (const WindowDim &d : p.window)
    kernel.push_back(d.kernel);
  Statement st = poolStatement(p, kernelIterators(p.rank()), kernel);
  Access input{in, {iter(st, 0), iter(st, 1)}};
  for (const AffineExpr &index : windowIndices(st, 2, p.out.size(), p.window))
    input.index.push_back(index);
  for (size_t d = p.out.size(); d < st.depth(); ++d)
    st.reduction[d] = true;
  st.write = iterAccess(out, st, 0, p.out.size());
  st.update = update;
  st.value = load(std::move(input));
  return st;
}

/// The O1×O2×... table 1 / (window positions counted): with count_include_pad, those inside
/// the padded input [−pad_begin, in + pad_end − 1] of every axis; otherwise those inside the
/// input. The count of a window is the product of its per-axis counts.
Tensor reciprocalCounts(const PoolShape &p, bool includePad) {
  std::vector<std::vector<int64_t>> counts;
  for (const WindowDim &d : p.window)
    counts.push_back(includePad ? windowCounts(d, -d.padBegin, d.input + d.padEnd - 1)
                                : windowCounts(d, 0, d.input - 1));
  Tensor t = Tensor::zeros(spatialDims(p.out));
  for (size_t flat = 0; flat < t.f.size(); ++flat) {
    int64_t count = 1;
    size_t rest = flat;
    for (size_t a = p.rank(); a-- > 0;) {
      count *= counts[a][rest % counts[a].size()];
      rest /= counts[a].size();
    }
    t.f[flat] = 1.0f / static_cast<float>(count);
  }
  return t;
}

/// O[n,c,o...] = O[n,c,o...] · rcp[o...].
Statement scaleStatement(const PoolShape &p, int rcp, int out) {
  Statement st = poolStatement(p, {}, {});
  st.write = iterAccess(out, st, 0, p.out.size());
  st.value = binary(Expr::Op::Mul, load(st.write), load(iterAccess(rcp, st, 2, p.rank())));
  return st;
}

} // namespace

void lowerMaxPool(LowerContext &ctx, const Node &node) {
  PoolShape p = poolShape(ctx, node);
  KernelBuilder kb(ctx, node.name.empty() ? "maxpool" : node.name);
  int in = kb.tensor(node.inputs[0]);
  int out = kb.tensor(node.outputs[0]);
  kb.add(initStatement(p, out, -std::numeric_limits<float>::infinity()));
  kb.add(windowStatement(p, in, out, Update::Max));
  kb.emit({node.name});
}

void lowerAveragePool(LowerContext &ctx, const Node &node) {
  PoolShape p = poolShape(ctx, node);
  bool includePad = node.getInt("count_include_pad", 0) != 0;
  int rcpBuffer = ctx.addConstant(node.outputs[0] + "_rcp_count", reciprocalCounts(p, includePad));
  KernelBuilder kb(ctx, node.name.empty() ? "averagepool" : node.name);
  int in = kb.tensor(node.inputs[0]);
  int rcp = kb.bufferTensor(rcpBuffer);
  int out = kb.tensor(node.outputs[0]);
  kb.add(initStatement(p, out, 0.0f));
  kb.add(windowStatement(p, in, out, Update::Add));
  kb.add(scaleStatement(p, rcp, out));
  kb.emit({node.name});
}

} // namespace nasc::ir::lower
