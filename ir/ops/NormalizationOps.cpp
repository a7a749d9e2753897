// BatchNormalization (ONNX BatchNormalization-15; inference, and batch statistics in training).
#include "ir/lower/Ops.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"

namespace nasc::ir::ops {

namespace {

void checkBatchNormalization(const Graph &, const Node &node) {
  requireAttribute(node, "training_mode", node.getInt("training_mode", 0) == 0,
                   "value 1 is not supported (inference only)");
  requireAttribute(node, "spatial", node.getInt("spatial", 1) == 1,
                   "value 0 (per-activation statistics) is not supported");
}

OutputTypes batchNormShape(const ShapeContext &ctx) {
  const Shape &x = ctx.in(0).shape;
  if (x.size() < 2)
    ctx.fail("input " + shapeToString(x) + " must be N x C x ...");
  for (size_t k = 1; k <= 4; ++k)
    if (ctx.in(k).shape != Shape{x[1]})
      ctx.fail("input '" + ctx.node.inputs[k] + "' has shape " + shapeToString(ctx.in(k).shape) +
               ", expected " + std::to_string(x[1]));
  return {ctx.in(0)};
}

} // namespace

std::vector<OpDef> normalizationOps() {
  return {OpDef{
      .name = "BatchNormalization",
      .attributes = {"epsilon", "momentum", "training_mode", "spatial", "is_test"},
      .extraOutputs = "training outputs",
      .check = checkBatchNormalization,
      .shape = batchNormShape,
      .lower = lower::lowerBatchNormalization,
      .forward = reference::batchNormalization,
      .trainingForward = reference::batchNormalizationTraining,
      .backward = reference::batchNormalizationTrainingBackward,
  }};
}

} // namespace nasc::ir::ops
