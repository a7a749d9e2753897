// MaxPool and AveragePool (ONNX, 2-d): reductions over the in-bounds part of each window; the
// average multiplies the window sum by a constant table of reciprocal counts.
#include "ir/Error.h"
#include "ir/lower/Ops.h"
#include "ir/lower/Statements.h"
#include "ir/lower/Window.h"

#include <limits>

namespace nasc::ir::lower {

namespace {

/// Shapes and window geometry of one 2-d pooling node.
struct PoolShape {
  Shape out; ///< N, C, OH, OW.
  std::vector<WindowDim> window;
};

PoolShape poolShape(const LowerContext &ctx, const Node &node) {
  if (node.inputs.empty() || node.outputs.empty())
    throw Error(ctx.where(node, "needs an input and an output"));
  if (node.outputs.size() > 1 && !node.outputs[1].empty())
    throw Error(ctx.where(node, "the Indices output is not supported"));
  const Shape &x = ctx.shape(node.inputs[0]);
  const Shape &y = ctx.shape(node.outputs[0]);
  if (x.size() != 4 || y.size() != 4 || y[0] != x[0] || y[1] != x[1])
    throw Error(ctx.where(node, "only 2-d pooling of NCHW tensors is supported (X " +
                                    shapeToString(x) + ", Y " + shapeToString(y) + ")"));
  Shape kernel = node.getInts("kernel_shape", {});
  if (kernel.size() != 2)
    throw Error(ctx.where(node, "attribute 'kernel_shape' must have 2 values"));
  if (node.getInt("storage_order", 0) != 0)
    throw Error(ctx.where(node, "attribute 'storage_order': only 0 is supported"));
  bool ceilMode = node.getInt("ceil_mode", 0) != 0;
  return {y, windowDims(ctx.where(node), node, {x[2], x[3]}, kernel, {y[2], y[3]}, ceilMode)};
}

/// O[n,c,oh,ow] = value.
Statement initStatement(const PoolShape &p, int out, float value) {
  Statement st = makeStatement({"n", "c", "oh", "ow"}, p.out);
  st.write = iterAccess(out, st, 0, 4);
  st.value = Expr::constant(value);
  return st;
}

/// O[n,c,oh,ow] (update)= I[n, c, oh·sh + r·dh − pt, ow·sw + s·dw − pl] over the in-bounds
/// window positions (r, s).
Statement windowStatement(const PoolShape &p, int in, int out, Update update) {
  Statement st =
      makeStatement({"n", "c", "oh", "ow", "r", "s"}, {p.out[0], p.out[1], p.out[2], p.out[3],
                                                       p.window[0].kernel, p.window[1].kernel});
  AffineExpr ih = windowIndex(st, 2, 4, p.window[0]);
  AffineExpr iw = windowIndex(st, 3, 5, p.window[1]);
  constrainToInput(st, ih, p.window[0]);
  constrainToInput(st, iw, p.window[1]);
  st.reduction[4] = st.reduction[5] = true;
  st.write = iterAccess(out, st, 0, 4);
  st.update = update;
  st.value = load({in, {iter(st, 0), iter(st, 1), ih, iw}});
  return st;
}

/// The [OH, OW] table 1 / (window positions counted): with count_include_pad, those inside the
/// padded input [−pad_begin, in + pad_end − 1]; otherwise those inside the input.
Tensor reciprocalCounts(const PoolShape &p, bool includePad) {
  std::vector<std::vector<int64_t>> counts;
  for (const WindowDim &d : p.window)
    counts.push_back(includePad ? windowCounts(d, -d.padBegin, d.input + d.padEnd - 1)
                                : windowCounts(d, 0, d.input - 1));
  Tensor t = Tensor::zeros({p.out[2], p.out[3]});
  for (size_t h = 0; h < counts[0].size(); ++h)
    for (size_t w = 0; w < counts[1].size(); ++w)
      t.f[h * counts[1].size() + w] = 1.0f / static_cast<float>(counts[0][h] * counts[1][w]);
  return t;
}

/// O[n,c,oh,ow] = O[n,c,oh,ow] · rcp[oh,ow].
Statement scaleStatement(const PoolShape &p, int rcp, int out) {
  Statement st = makeStatement({"n", "c", "oh", "ow"}, p.out);
  st.write = iterAccess(out, st, 0, 4);
  st.value = binary(Expr::Op::Mul, load(st.write), load(iterAccess(rcp, st, 2, 2)));
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
