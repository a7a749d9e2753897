// Conv (ONNX, 2-d): O[n,k,oh,ow] = B[k] + Σ_{c,r,s} I[n, c, oh·sh + r·dh − pt, ow·sw + s·dw − pl]
// · W[k,c,r,s], with padding points excluded from the domain rather than read.
#include "ir/Error.h"
#include "ir/lower/Ops.h"
#include "ir/lower/Statements.h"
#include "ir/lower/Window.h"

namespace nasc::ir::lower {

namespace {

/// Shapes and window geometry of one 2-d Conv node.
struct ConvShape {
  int64_t N, C, K, G, OH, OW;
  std::vector<WindowDim> window; ///< Height, width.
};

ConvShape convShape(const LowerContext &ctx, const Node &node) {
  if (node.inputs.size() < 2 || node.outputs.empty())
    throw Error(ctx.where(node, "needs inputs X and W and an output"));
  const Shape &x = ctx.shape(node.inputs[0]);
  const Shape &w = ctx.shape(node.inputs[1]);
  const Shape &y = ctx.shape(node.outputs[0]);
  if (x.size() != 4 || w.size() != 4 || y.size() != 4)
    throw Error(ctx.where(node, "only 2-d convolution (4-d X, W, Y) is supported"));
  ConvShape s{x[0], x[1], w[0], node.getInt("group", 1), y[2], y[3], {}};
  if (s.G < 1 || s.C % s.G != 0 || s.K % s.G != 0 || w[1] != s.C / s.G)
    throw Error(ctx.where(node, "attribute 'group': " + std::to_string(s.G) +
                                    " does not divide the channels of X " + shapeToString(x) +
                                    " and W " + shapeToString(w)));
  if (y[0] != s.N || y[1] != s.K)
    throw Error(ctx.where(node, "output shape " + shapeToString(y) + " does not match X and W"));
  Shape kernel{w[2], w[3]};
  if (node.getInts("kernel_shape", kernel) != kernel)
    throw Error(ctx.where(node, "attribute 'kernel_shape' does not match W " + shapeToString(w)));
  s.window = windowDims(ctx.where(node), node, {x[2], x[3]}, kernel, {y[2], y[3]}, false);
  return s;
}

/// O = B[k], or O = 0 without a bias (`bias` < 0).
Statement initStatement(const ConvShape &s, int bias, int out) {
  Statement st = makeStatement({"n", "k", "oh", "ow"}, {s.N, s.K, s.OH, s.OW});
  st.write = iterAccess(out, st, 0, 4);
  st.value = bias >= 0 ? load({bias, {iter(st, 1)}}) : Expr::constant(0.0f);
  return st;
}

/// The reduction statement; with G > 1 the iterators are (n, g, kg, oh, ow, cg, r, s) with
/// k = g·K/G + kg and c = g·C/G + cg, which keeps every access affine.
Statement reduceStatement(const ConvShape &s, int in, int weight, int out) {
  bool grouped = s.G > 1;
  Statement st =
      grouped ? makeStatement({"n", "g", "kg", "oh", "ow", "cg", "r", "s"},
                              {s.N, s.G, s.K / s.G, s.OH, s.OW, s.C / s.G, s.window[0].kernel,
                               s.window[1].kernel})
              : makeStatement({"n", "k", "oh", "ow", "c", "r", "s"},
                              {s.N, s.K, s.OH, s.OW, s.C, s.window[0].kernel, s.window[1].kernel});
  size_t first = grouped ? 3 : 2;
  AffineExpr k = grouped ? iter(st, 1, s.K / s.G) + iter(st, 2) : iter(st, 1);
  AffineExpr cw = grouped ? iter(st, 5) : iter(st, 4);
  AffineExpr c = grouped ? iter(st, 1, s.C / s.G) + cw : cw;
  AffineExpr ih = windowIndex(st, first, first + 3, s.window[0]);
  AffineExpr iw = windowIndex(st, first + 1, first + 4, s.window[1]);
  constrainToInput(st, ih, s.window[0]);
  constrainToInput(st, iw, s.window[1]);
  for (size_t d = first + 2; d < st.depth(); ++d)
    st.reduction[d] = true;
  st.write = {out, {iter(st, 0), k, iter(st, first), iter(st, first + 1)}};
  st.update = Update::Add;
  st.value = binary(Expr::Op::Mul, load({in, {iter(st, 0), c, ih, iw}}),
                    load({weight, {k, cw, iter(st, first + 3), iter(st, first + 4)}}));
  return st;
}

/// O = O + R (residual) over the output.
Statement residualStatement(const ConvShape &s, int residual, int out) {
  Statement st = makeStatement({"n", "k", "oh", "ow"}, {s.N, s.K, s.OH, s.OW});
  st.write = iterAccess(out, st, 0, 4);
  st.value = binary(Expr::Op::Add, load(st.write), load(iterAccess(residual, st, 0, 4)));
  return st;
}

/// O = max(O, 0) over the output.
Statement reluStatement(const ConvShape &s, int out) {
  Statement st = makeStatement({"n", "k", "oh", "ow"}, {s.N, s.K, s.OH, s.OW});
  st.write = iterAccess(out, st, 0, 4);
  st.value = binary(Expr::Op::Max, load(st.write), Expr::constant(0.0f));
  return st;
}

} // namespace

void lowerConv(LowerContext &ctx, const ConvFusion &fusion) {
  const Graph &g = ctx.graph();
  const Node &node = g.nodes[fusion.conv];
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

} // namespace nasc::ir::lower
