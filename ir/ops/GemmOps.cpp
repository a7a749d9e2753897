// Gemm (ONNX Gemm-13) and MatMul (ONNX MatMul-13, 2-D inputs only).
#include "ir/Error.h"
#include "ir/lower/Ops.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"
#include "ir/passes/ShapeInference.h"

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

} // namespace

std::vector<OpDef> gemmOps() {
  return {
      OpDef{
          .name = "Gemm",
          .attributes = {"alpha", "beta", "transA", "transB", "broadcast"},
          .check = checkGemm,
          .shape = gemmShape,
          .lower = lower::lowerGemm,
          .forward = reference::gemm,
          .backward = reference::gemmBackward,
          .weightGradients = reference::gemmWeightGradients,
      },
      OpDef{
          .name = "MatMul",
          .shape = matMulShape,
          .lower = lower::lowerMatMul,
          .forward = reference::matMul,
      },
  };
}

} // namespace nasc::ir::ops
