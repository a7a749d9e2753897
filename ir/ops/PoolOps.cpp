// MaxPool, AveragePool (ONNX MaxPool-12, AveragePool-11) and GlobalAveragePool, GlobalMaxPool.
// MaxPool and AveragePool (any number of spatial axes) are lowered to reductions over the
// in-bounds part of each window, the average multiplying the window sum by a constant table of
// reciprocal counts; the global pools reduce all spatial axes of N×C×D1×...×Dk to N×C×1×...×1.
#include "ir/Error.h"
#include "ir/lower/LowerContext.h"
#include "ir/lower/Statements.h"
#include "ir/lower/Window.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"
#include "ir/passes/WindowGeometry.h"

#include <algorithm>
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
  const Shape &x = ctx.shape(node.inputs[0]);
  const Shape &y = ctx.shape(node.outputs[0]);
  if (x.size() < 3 || y.size() != x.size() || y[0] != x[0] || y[1] != x[1])
    throw Error(ctx.where(node, "X " + shapeToString(x) + " and Y " + shapeToString(y) +
                                    " must be N×C×D1×... with the same N, C and rank >= 3"));
  Shape kernel = node.getInts("kernel_shape", {});
  if (kernel.size() != x.size() - 2)
    throw Error(ctx.where(node, "attribute 'kernel_shape' must have " +
                                    std::to_string(x.size() - 2) + " values"));
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

/// O[n, c, 0, ..., 0] over the statement's first two iterators.
Access pooledAccess(int out, const Statement &st, size_t spatial) {
  Access a = iterAccess(out, st, 0, 2);
  for (size_t d = 0; d < spatial; ++d)
    a.index.push_back(constant(st, 0));
  return a;
}

/// N×C×1×...×1 for an input `x` of rank >= 2.
Shape pooledShape(const Shape &x) {
  Shape y(x.size(), 1);
  y[0] = x[0];
  y[1] = x[1];
  return y;
}

/// The statement O[n,c,0..0] = value over (n, c).
Statement channelStatement(const Shape &x, int out) {
  Statement st = makeStatement({"n", "c"}, {x[0], x[1]});
  st.write = pooledAccess(out, st, x.size() - 2);
  return st;
}

void lowerGlobalPool(LowerContext &ctx, const Node &node, bool average) {
  if (node.inputs.empty() || node.outputs.empty())
    throw Error(ctx.where(node, "needs an input and an output"));
  const Shape &x = ctx.shape(node.inputs[0]);
  if (x.size() < 3 || ctx.shape(node.outputs[0]) != pooledShape(x))
    throw Error(ctx.where(node, "input " + shapeToString(x) +
                                    " must be NxCxD1x... and the output NxCx1x..."));
  KernelBuilder kb(ctx, node.name.empty() ? "globalpool" : node.name);
  int in = kb.tensor(node.inputs[0]);
  int out = kb.tensor(node.outputs[0]);
  size_t spatial = x.size() - 2;
  Statement init = channelStatement(x, out);
  init.value = Expr::constant(average ? 0.0f : -std::numeric_limits<float>::infinity());
  kb.add(std::move(init));
  std::vector<std::string> iterators{"n", "c"};
  for (const auto &name :
       x.size() == 4 ? std::vector<std::string>{"h", "w"} : elementIterators(spatial, "x"))
    iterators.push_back(name);
  Statement reduce = makeStatement(iterators, x);
  for (size_t d = 2; d < x.size(); ++d)
    reduce.reduction[d] = true;
  reduce.write = pooledAccess(out, reduce, spatial);
  reduce.update = average ? Update::Add : Update::Max;
  reduce.value = load(iterAccess(in, reduce, 0, x.size()));
  kb.add(std::move(reduce));
  if (average) {
    Statement scale = channelStatement(x, out);
    float rcp = 1.0f / static_cast<float>(numElements(Shape(x.begin() + 2, x.end())));
    scale.value = binary(Expr::Op::Mul, load(scale.write), Expr::constant(rcp));
    kb.add(std::move(scale));
  }
  kb.emit({node.name});
}

void lowerGlobalAveragePool(LowerContext &ctx, const Node &node) {
  lowerGlobalPool(ctx, node, true);
}

void lowerGlobalMaxPool(LowerContext &ctx, const Node &node) { lowerGlobalPool(ctx, node, false); }

} // namespace

} // namespace nasc::ir::lower

namespace nasc::ir::ops {

namespace {

void checkMaxPool(const Graph &graph, const Node &node) {
  checkAutoPad(graph, node);
  requireAttribute(node, "storage_order", node.getInt("storage_order", 0) == 0,
                   "value 1 (column-major indices) is not supported");
}

OutputTypes poolShape(const ShapeContext &ctx) {
  const Shape &x = ctx.in(0).shape;
  if (!ctx.node.has("kernel_shape"))
    ctx.fail("attribute 'kernel_shape': missing");
  WindowGeometry g = windowGeometry(ctx.node, x, ctx.node.getInts("kernel_shape", {}));
  Shape out{x[0], x[1]};
  out.insert(out.end(), g.outputSpatial.begin(), g.outputSpatial.end());
  return {ValueInfo{DType::Float32, out}};
}

OutputTypes globalPoolShape(const ShapeContext &ctx) {
  Shape out = ctx.in(0).shape;
  if (out.size() < 3)
    ctx.fail("input " + shapeToString(out) + " must be N x C x spatial...");
  std::fill(out.begin() + 2, out.end(), 1);
  return {ValueInfo{DType::Float32, out}};
}

} // namespace

std::vector<OpDef> poolOps() {
  return {
      OpDef{
          .name = "MaxPool",
          .attributes = {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads",
                         "storage_order", "strides"},
          .extraOutputs = "Indices",
          .check = checkMaxPool,
          .shape = poolShape,
          .lower = lower::lowerMaxPool,
          .forward = reference::maxPool,
          .backward = reference::maxPoolBackward,
          .perChannel = true,
          .homogeneous = true,
      },
      OpDef{
          .name = "AveragePool",
          .attributes = {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads",
                         "strides"},
          .check = checkAutoPad,
          .shape = poolShape,
          .lower = lower::lowerAveragePool,
          .forward = reference::averagePool,
          .backward = reference::averagePoolBackward,
          .perChannel = true,
          .homogeneous = true,
      },
      OpDef{
          .name = "GlobalAveragePool",
          .shape = globalPoolShape,
          .lower = lower::lowerGlobalAveragePool,
          .forward = reference::globalAveragePool,
          .backward = reference::globalAveragePoolBackward,
          .perChannel = true,
          .homogeneous = true,
      },
      OpDef{
          .name = "GlobalMaxPool",
          .shape = globalPoolShape,
          .lower = lower::lowerGlobalMaxPool,
          .forward = reference::globalMaxPool,
          .backward = reference::globalMaxPoolBackward,
          .perChannel = true,
          .homogeneous = true,
      },
  };
}

} // namespace nasc::ir::ops
