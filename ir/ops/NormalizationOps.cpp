// BatchNormalization (ONNX BatchNormalization-15; inference, and batch statistics in training).
// Lowered, when not folded into a Conv, to a per-channel scale and shift
// precomputed at lowering, s = γ / sqrt(var + ε), t = β − mean·s, then O = I·s[c] + t[c].
#include "ir/Error.h"
#include "ir/lower/LowerContext.h"
#include "ir/lower/Statements.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"

#include <cmath>

namespace nasc::ir::lower {

namespace {

/// The float32 initializer `value` of `channels` elements (a BatchNormalization parameter).
const Tensor &channelParameter(const LowerContext &ctx, const Node &node, const std::string &value,
                               int64_t channels) {
  auto it = ctx.graph().initializers.find(value);
  if (it == ctx.graph().initializers.end() || it->second.dtype != DType::Float32 ||
      it->second.size() != channels)
    throw Error(ctx.where(node, "input '" + value + "' must be a float32 initializer of " +
                                    std::to_string(channels) + " elements"));
  return it->second;
}

void lowerBatchNormalization(LowerContext &ctx, const Node &node) {
  if (node.inputs.size() != 5 || node.outputs.empty())
    throw Error(ctx.where(node, "needs inputs X, scale, B, input_mean, input_var and output Y"));
  if (node.getInt("training_mode", 0) != 0 || (node.outputs.size() > 1 && !node.outputs[1].empty()))
    throw Error(
        ctx.where(node, "only inference mode (training_mode = 0, one output) is supported"));
  const Shape &x = ctx.shape(node.inputs[0]);
  if (x.size() < 2 || ctx.shape(node.outputs[0]) != x)
    throw Error(ctx.where(node, "input " + shapeToString(x) + " must be NxCx... like the output"));
  int64_t channels = x[1];
  const Tensor &gamma = channelParameter(ctx, node, node.inputs[1], channels);
  const Tensor &beta = channelParameter(ctx, node, node.inputs[2], channels);
  const Tensor &mean = channelParameter(ctx, node, node.inputs[3], channels);
  const Tensor &var = channelParameter(ctx, node, node.inputs[4], channels);
  double epsilon = node.getFloat("epsilon", 1e-5f);
  Tensor scale = Tensor::zeros({channels});
  Tensor shift = Tensor::zeros({channels});
  for (size_t c = 0; c < scale.f.size(); ++c) {
    double s = gamma.f[c] / std::sqrt(static_cast<double>(var.f[c]) + epsilon);
    scale.f[c] = static_cast<float>(s);
    shift.f[c] = static_cast<float>(beta.f[c] - mean.f[c] * s);
  }
  int scaleBuffer = ctx.addConstant(node.outputs[0] + "_bn_scale", std::move(scale));
  int shiftBuffer = ctx.addConstant(node.outputs[0] + "_bn_shift", std::move(shift));
  KernelBuilder kb(ctx, node.name.empty() ? "batchnorm" : node.name);
  int in = kb.tensor(node.inputs[0]);
  int ts = kb.bufferTensor(scaleBuffer);
  int tt = kb.bufferTensor(shiftBuffer);
  Statement st = elementStatement(kb.tensor(node.outputs[0]), x);
  Expr scaled =
      binary(Expr::Op::Mul, load(iterAccess(in, st, 0, x.size())), load(iterAccess(ts, st, 1, 1)));
  st.value = binary(Expr::Op::Add, std::move(scaled), load(iterAccess(tt, st, 1, 1)));
  kb.add(std::move(st));
  kb.emit({node.name});
}

} // namespace

} // namespace nasc::ir::lower

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
      .floatAttributes = {"epsilon", "momentum"},
      .extraOutputs = "training outputs",
      .check = checkBatchNormalization,
      .shape = batchNormShape,
      .lower = lower::lowerBatchNormalization,
      .forward = reference::batchNormalization,
      .trainingForward = reference::batchNormalizationTraining,
      .backward = reference::batchNormalizationTrainingBackward,
      .parameterInputs = {1, 2},
  }};
}

} // namespace nasc::ir::ops
