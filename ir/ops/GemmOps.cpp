// Gemm (ONNX Gemm-13) and MatMul (ONNX MatMul-13, 2-D inputs only).
// Lowered to Y[i,j] = alpha · Σ_k A'[i,k]·B'[k,j] + beta · C[i,j], A' = transA ? Aᵀ : A,
// B' = transB ? Bᵀ : B, C broadcast to M×N; MatMul as Gemm without C. A constant Bᵀ is stored
// transposed (productB).
#include "ir/Error.h"
#include "ir/lower/LowerContext.h"
#include "ir/lower/Statements.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"
#include "ir/passes/ShapeInference.h"

namespace nasc::ir::lower {

namespace {

/// Attributes and sizes of one matrix product.
struct GemmShape {
  int64_t M, N, K;
  bool transA, transB;
  float alpha, beta;
};

GemmShape gemmShape(const LowerContext &ctx, const Node &node, bool transA, bool transB) {
  if (node.inputs.size() < 2 || node.outputs.empty())
    throw Error(ctx.where(node, "needs inputs A and B and an output"));
  const Shape &a = ctx.shape(node.inputs[0]);
  const Shape &b = ctx.shape(node.inputs[1]);
  const Shape &y = ctx.shape(node.outputs[0]);
  if (a.size() != 2 || b.size() != 2 || y.size() != 2)
    throw Error(ctx.where(node, "only 2-d A, B and Y are supported"));
  GemmShape s{
      transA ? a[1] : a[0], transB ? b[0] : b[1], transA ? a[0] : a[1], transA, transB, 1.0f, 1.0f};
  if ((transB ? b[1] : b[0]) != s.K || y != Shape{s.M, s.N})
    throw Error(ctx.where(node, "shapes A " + shapeToString(a) + ", B " + shapeToString(b) +
                                    ", Y " + shapeToString(y) + " do not match"));
  return s;
}

/// Y[i,j] = beta·C[...] (C broadcast), or 0 without C (`c` < 0).
Statement initStatement(const GemmShape &s, int c, const Shape &cShape, int out) {
  Statement st = makeStatement({"i", "j"}, {s.M, s.N});
  st.write = iterAccess(out, st, 0, 2);
  if (c < 0 || s.beta == 0.0f)
    st.value = Expr::constant(0.0f);
  else if (s.beta == 1.0f)
    st.value = load(broadcastAccess(c, cShape, {s.M, s.N}, st));
  else
    st.value = binary(Expr::Op::Mul, Expr::constant(s.beta),
                      load(broadcastAccess(c, cShape, {s.M, s.N}, st)));
  return st;
}

/// Y[i,j] += (alpha·) A'[i,k]·B'[k,j].
Statement productStatement(const GemmShape &s, int a, int b, int out) {
  Statement st = makeStatement({"i", "j", "k"}, {s.M, s.N, s.K});
  st.reduction[2] = true;
  st.write = iterAccess(out, st, 0, 2);
  st.update = Update::Add;
  Access ta{a, {iter(st, s.transA ? 2 : 0), iter(st, s.transA ? 0 : 2)}};
  Access tb{b, {iter(st, s.transB ? 1 : 2), iter(st, s.transB ? 2 : 1)}};
  st.value = binary(Expr::Op::Mul, load(ta), load(tb));
  if (s.alpha != 1.0f)
    st.value = binary(Expr::Op::Mul, Expr::constant(s.alpha), std::move(st.value));
  return st;
}

/// Kernel tensor of B as the product reads it. A constant Bᵀ (transB, e.g. a Linear layer's
/// [N, K] weight) is transposed here, at compile time, into a [K, N] constant, so that the
/// vectorized j loop reads it contiguously; `s.transB` is cleared then.
int productB(LowerContext &ctx, KernelBuilder &kb, const Node &node, GemmShape &s) {
  const std::string &b = node.inputs[1];
  if (!s.transB || !ctx.graph().isInitializer(b))
    return kb.tensor(b);
  const Tensor &source = ctx.graph().initializers.at(b);
  if (source.dtype != DType::Float32)
    return kb.tensor(b);
  Tensor transposed = source;
  transposed.shape = {s.K, s.N};
  for (int64_t j = 0; j < s.N; ++j)
    for (int64_t k = 0; k < s.K; ++k)
      transposed.f[static_cast<size_t>(k * s.N + j)] = source.f[static_cast<size_t>(j * s.K + k)];
  s.transB = false;
  return kb.bufferTensor(ctx.addConstant(b + "_T", std::move(transposed)));
}

void emitGemm(LowerContext &ctx, const Node &node, GemmShape s) {
  bool hasC = node.inputs.size() > 2 && !node.inputs[2].empty();
  Shape cShape = hasC ? ctx.shape(node.inputs[2]) : Shape{};
  if (hasC && (cShape.size() > 2 || (cShape.size() == 2 && cShape[0] != 1 && cShape[0] != s.M) ||
               (!cShape.empty() && cShape.back() != 1 && cShape.back() != s.N)))
    throw Error(ctx.where(node, "C " + shapeToString(cShape) + " does not broadcast to " +
                                    shapeToString({s.M, s.N})));
  KernelBuilder kb(ctx, node.name.empty() ? node.op_type : node.name);
  int a = kb.tensor(node.inputs[0]);
  int b = productB(ctx, kb, node, s);
  int c = hasC ? kb.tensor(node.inputs[2]) : -1;
  int out = kb.tensor(node.outputs[0]);
  kb.add(initStatement(s, c, cShape, out));
  kb.add(productStatement(s, a, b, out));
  kb.emit({node.name});
}

void lowerGemm(LowerContext &ctx, const Node &node) {
  GemmShape s = gemmShape(ctx, node, node.getInt("transA", 0) != 0, node.getInt("transB", 0) != 0);
  s.alpha = node.getFloat("alpha", 1.0f);
  s.beta = node.getFloat("beta", 1.0f);
  emitGemm(ctx, node, s);
}

void lowerMatMul(LowerContext &ctx, const Node &node) {
  GemmShape s = gemmShape(ctx, node, false, false);
  if (node.inputs.size() != 2)
    throw Error(ctx.where(node, "needs exactly two inputs"));
  emitGemm(ctx, node, s);
}

} // namespace

} // namespace nasc::ir::lower

namespace nasc::ir::ops {

namespace {

/// transA / transB are 0 or 1, and inputs A and B of known type are 2-D.
void checkGemm(const Graph &graph, const Node &node) {
  for (const char *flag : {"transA", "transB"})
    requireAttribute(node, flag, node.getInt(flag, 0) == 0 || node.getInt(flag, 0) == 1,
                     "must be 0 or 1");
  for (size_t k = 0; k < 2 && k < node.inputs.size(); ++k)
    if (std::optional<ValueInfo> type = knownType(graph, node.inputs[k]);
        type && type->shape.size() != 2)
      throw Error(node.describe() + ": input '" + node.inputs[k] +
                  "': Gemm inputs A and B must be 2-D, got " + shapeToString(type->shape));
}

OutputTypes gemmShape(const ShapeContext &ctx) {
  const Shape &a = ctx.in(0).shape;
  const Shape &b = ctx.in(1).shape;
  if (a.size() != 2 || b.size() != 2)
    ctx.fail("inputs " + shapeToString(a) + " and " + shapeToString(b) + " must be 2-D");
  const bool transA = ctx.node.getInt("transA", 0) != 0;
  const bool transB = ctx.node.getInt("transB", 0) != 0;
  const int64_t m = transA ? a[1] : a[0];
  const int64_t kA = transA ? a[0] : a[1];
  const int64_t kB = transB ? b[1] : b[0];
  const int64_t n = transB ? b[0] : b[1];
  if (kA != kB)
    ctx.fail("inner dimensions differ: A " + shapeToString(a) + ", B " + shapeToString(b));
  Shape out{m, n};
  if (ctx.hasInput(2) && broadcastShapes(out, ctx.in(2).shape, ctx.node.describe()) != out)
    ctx.fail("bias C " + shapeToString(ctx.in(2).shape) + " does not broadcast to " +
             shapeToString(out));
  return {ValueInfo{DType::Float32, out}};
}

/// A (M, K) · B (K, N) -> (M, N); other ranks are not supported.
OutputTypes matMulShape(const ShapeContext &ctx) {
  const Shape &a = ctx.in(0).shape;
  const Shape &b = ctx.in(1).shape;
  if (a.size() != 2 || b.size() != 2)
    ctx.fail("inputs " + shapeToString(a) + " and " + shapeToString(b) +
             ": MatMul of inputs other than 2-D is not supported");
  if (a[1] != b[0])
    ctx.fail("inner dimensions differ: A " + shapeToString(a) + ", B " + shapeToString(b));
  return {ValueInfo{DType::Float32, {a[0], b[1]}}};
}

/// A (M, F) (transA: (F, M)), Y (M, P): 2·M·F·P.
double gemmFlops(const Graph &graph, const Node &node) {
  const Shape &a = graph.shapeOf(node.inputs.at(0));
  const Shape &y = graph.shapeOf(node.outputs.at(0));
  const int64_t inner = node.getInt("transA", 0) ? a.at(0) : a.at(1);
  return 2.0 * static_cast<double>(numElements(y)) * static_cast<double>(inner);
}

/// A (M, K), B (K, N): 2·M·K·N.
double matMulFlops(const Graph &graph, const Node &node) {
  const Shape &a = graph.shapeOf(node.inputs.at(0));
  const Shape &y = graph.shapeOf(node.outputs.at(0));
  return 2.0 * static_cast<double>(numElements(y)) * static_cast<double>(a.at(1));
}

} // namespace

std::vector<OpDef> gemmOps() {
  return {
      OpDef{
          .name = "Gemm",
          .attributes = {"alpha", "beta", "transA", "transB", "broadcast"},
          .floatAttributes = {"alpha", "beta"},
          .check = checkGemm,
          .shape = gemmShape,
          .lower = lower::lowerGemm,
          .forward = reference::gemm,
          .backward = reference::gemmBackward,
          .weightGradients = reference::gemmWeightGradients,
          .parameterInputs = {1, 2},
          .flops = gemmFlops,
      },
      OpDef{
          .name = "MatMul",
          .shape = matMulShape,
          .lower = lower::lowerMatMul,
          .forward = reference::matMul,
          .backward = reference::matMulBackward,
          // Both operands' gradients: an initializer A or B gets its weight gradient.
          .weightGradients = reference::matMulBackward,
          .parameterInputs = {0, 1},
          .flops = matMulFlops,
      },
  };
}

} // namespace nasc::ir::ops
