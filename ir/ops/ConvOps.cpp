// Conv (ONNX Conv-11): N×C×D1×... input, K×C/group×R1×... weight, optional bias K.
// Lowered (any number of spatial axes; 2-d shown) to O[n,k,oh,ow] = B[k] +
// Σ_{c,r,s} I[n, c, oh·sh + r·dh − pt, ow·sw + s·dw − pl] · W[k,c,r,s], with padding points
// excluded from the domain rather than read.
#include "ir/Error.h"
#include "ir/lower/LowerContext.h"
#include "ir/lower/Statements.h"
#include "ir/lower/Window.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"
#include "ir/passes/WindowGeometry.h"

namespace nasc::ir::lower {

namespace {

/// Shapes and window geometry of one Conv node (X N×C×D1×..., W K×C/G×R1×..., Y N×K×O1×...).
struct ConvShape {
  int64_t N, C, K, G;
  Shape out;                     ///< N, K, O1, O2, ...
  std::vector<WindowDim> window; ///< One per spatial axis.
  size_t rank() const { return window.size(); }
};

ConvShape convShape(const LowerContext &ctx, const Node &node) {
  if (node.inputs.size() < 2 || node.outputs.empty())
    throw Error(ctx.where(node, "needs inputs X and W and an output"));
  const Shape &x = ctx.shape(node.inputs[0]);
  const Shape &w = ctx.shape(node.inputs[1]);
  const Shape &y = ctx.shape(node.outputs[0]);
  if (x.size() < 3 || w.size() != x.size() || y.size() != x.size())
    throw Error(ctx.where(node, "X " + shapeToString(x) + ", W " + shapeToString(w) + " and Y " +
                                    shapeToString(y) + " must be N×C×D1×..., of one rank >= 3"));
  ConvShape s{x[0], x[1], w[0], node.getInt("group", 1), y, {}};
  if (s.G < 1 || s.C % s.G != 0 || s.K % s.G != 0 || w[1] != s.C / s.G)
    throw Error(ctx.where(node, "attribute 'group': " + std::to_string(s.G) +
                                    " does not divide the channels of X " + shapeToString(x) +
                                    " and W " + shapeToString(w)));
  if (y[0] != s.N || y[1] != s.K)
    throw Error(ctx.where(node, "output shape " + shapeToString(y) + " does not match X and W"));
  Shape kernel = spatialDims(w);
  if (node.getInts("kernel_shape", kernel) != kernel)
    throw Error(ctx.where(node, "attribute 'kernel_shape' does not match W " + shapeToString(w)));
  s.window = windowDims(ctx.where(node), node, spatialDims(x), kernel, spatialDims(y), false);
  return s;
}

/// A statement over the output (n, k, output positions).
Statement outputStatement(const ConvShape &s, int out) {
  std::vector<std::string> iterators{"n", "k"};
  for (const std::string &name : outputIterators(s.rank()))
    iterators.push_back(name);
  Statement st = makeStatement(std::move(iterators), s.out);
  st.write = iterAccess(out, st, 0, s.out.size());
  return st;
}

/// O = B[k], or O = 0 without a bias (`bias` < 0).
Statement initStatement(const ConvShape &s, int bias, int out) {
  Statement st = outputStatement(s, out);
  st.value = bias >= 0 ? load({bias, {iter(st, 1)}}) : Expr::constant(0.0f);
  return st;
}

/// Iterators (n, k, outputs..., c, kernel offsets...), or with G > 1
/// (n, g, kg, outputs..., cg, kernel offsets...), which keeps every access affine.
Statement reduceDomain(const ConvShape &s) {
  bool grouped = s.G > 1;
  std::vector<std::string> iterators =
      grouped ? std::vector<std::string>{"n", "g", "kg"} : std::vector<std::string>{"n", "k"};
  Shape extents = grouped ? Shape{s.N, s.G, s.K / s.G} : Shape{s.N, s.K};
  for (const std::string &name : outputIterators(s.rank()))
    iterators.push_back(name);
  for (const WindowDim &d : s.window)
    extents.push_back(d.output);
  iterators.push_back(grouped ? "cg" : "c");
  extents.push_back(s.C / s.G);
  for (const std::string &name : kernelIterators(s.rank()))
    iterators.push_back(name);
  for (const WindowDim &d : s.window)
    extents.push_back(d.kernel);
  return makeStatement(std::move(iterators), std::move(extents));
}

/// The reduction statement over reduceDomain; with G > 1, k = g·K/G + kg and c = g·C/G + cg.
Statement reduceStatement(const ConvShape &s, int in, int weight, int out) {
  bool grouped = s.G > 1;
  Statement st = reduceDomain(s);
  size_t first = grouped ? 3 : 2;
  size_t channel = first + s.rank();
  AffineExpr k = grouped ? iter(st, 1, s.K / s.G) + iter(st, 2) : iter(st, 1);
  AffineExpr c = grouped ? iter(st, 1, s.C / s.G) + iter(st, channel) : iter(st, channel);
  std::vector<AffineExpr> inputIndex = windowIndices(st, first, channel + 1, s.window);
  for (size_t d = channel; d < st.depth(); ++d)
    st.reduction[d] = true;
  Access o{out, {iter(st, 0), k}};
  Access i{in, {iter(st, 0), c}};
  Access w{weight, {k, iter(st, channel)}};
  for (size_t a = 0; a < s.rank(); ++a) {
    o.index.push_back(iter(st, first + a));
    i.index.push_back(inputIndex[a]);
    w.index.push_back(iter(st, channel + 1 + a));
  }
  st.write = o;
  st.update = Update::Add;
  st.value = binary(Expr::Op::Mul, load(std::move(i)), load(std::move(w)));
  return st;
}

/// O = O + R (residual) over the output.
Statement residualStatement(const ConvShape &s, int residual, int out) {
  Statement st = outputStatement(s, out);
  st.value = binary(Expr::Op::Add, load(st.write), load(iterAccess(residual, st, 0, s.out.size())));
  return st;
}

/// O = max(O, 0) over the output.
Statement reluStatement(const ConvShape &s, int out) {
  Statement st = outputStatement(s, out);
  st.value = binary(Expr::Op::Max, load(st.write), Expr::constant(0.0f));
  return st;
}

void lowerConv(LowerContext &ctx, const Node &node) {
  const Graph &g = ctx.graph();
  const ConvFusion &fusion = ctx.fusionOf(node);
  ConvShape s = convShape(ctx, node);
  KernelBuilder kb(ctx, node.name.empty() ? "conv" : node.name);
  int in = kb.tensor(node.inputs[0]);
  int weight = kb.tensor(node.inputs[1]);
  bool hasBias = node.inputs.size() > 2 && !node.inputs[2].empty();
  if (hasBias && ctx.shape(node.inputs[2]) != Shape{s.K})
    throw Error(ctx.where(node, "bias B " + shapeToString(ctx.shape(node.inputs[2])) +
                                    " must have " + std::to_string(s.K) + " elements"));
  int bias = hasBias ? kb.tensor(node.inputs[2]) : -1;
  int residual = fusion.add ? kb.tensor(fusion.residual) : -1;
  int out = kb.tensor(g.nodes[fusion.last()].outputs.at(0));
  std::vector<std::string> nodes{node.name};
  kb.add(initStatement(s, bias, out));
  kb.add(reduceStatement(s, in, weight, out));
  if (fusion.add) {
    kb.add(residualStatement(s, residual, out));
    nodes.push_back(g.nodes[*fusion.add].name);
  }
  if (fusion.relu) {
    kb.add(reluStatement(s, out));
    nodes.push_back(g.nodes[*fusion.relu].name);
  }
  kb.emit(std::move(nodes));
}

} // namespace

} // namespace nasc::ir::lower

namespace nasc::ir::ops {

namespace {

OutputTypes convShape(const ShapeContext &ctx) {
  const Shape &x = ctx.in(0).shape;
  const Shape &w = ctx.in(1).shape;
  const int64_t group = ctx.node.getInt("group", 1);
  if (w.size() != x.size() || x.size() < 3)
    ctx.fail("input " + shapeToString(x) + " and weight " + shapeToString(w) +
             " must both be N x C x spatial...");
  if (group < 1 || x[1] != w[1] * group || w[0] % group != 0)
    ctx.fail("attribute 'group': " + std::to_string(group) + " does not match input " +
             shapeToString(x) + " and weight " + shapeToString(w));
  std::vector<int64_t> kernel(w.begin() + 2, w.end());
  if (ctx.node.has("kernel_shape") && ctx.node.getInts("kernel_shape", {}) != kernel)
    ctx.fail("attribute 'kernel_shape': does not match weight " + shapeToString(w));
  if (ctx.hasInput(2) && ctx.in(2).shape != Shape{w[0]})
    ctx.fail("bias " + shapeToString(ctx.in(2).shape) + " must have shape " + std::to_string(w[0]));
  WindowGeometry g = windowGeometry(ctx.node, x, kernel);
  Shape out{x[0], w[0]};
  out.insert(out.end(), g.outputSpatial.begin(), g.outputSpatial.end());
  return {ValueInfo{DType::Float32, out}};
}

/// X (N, C, ...), W (K, C/G, k...), Y (N, K, o...): 2·N·K·Πo·(C/G)·Πk.
double convFlops(const Graph &graph, const Node &node) {
  const Shape &y = graph.shapeOf(node.outputs.at(0));
  const Shape &w = graph.shapeOf(node.inputs.at(1));
  return 2.0 * static_cast<double>(numElements(y)) * static_cast<double>(w[1]) *
         static_cast<double>(numElements(w) / (w[0] * w[1]));
}

} // namespace

std::vector<OpDef> convOps() {
  return {OpDef{
      .name = "Conv",
      .attributes = {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"},
      .check = checkAutoPad,
      .shape = convShape,
      .lower = lower::lowerConv,
      .forward = reference::conv,
      .backward = reference::convBackward,
      .weightGradients = reference::convWeightGradients,
      .parameterInputs = {1, 2},
      .flops = convFlops,
  }};
}

} // namespace nasc::ir::ops
