// BatchNormalization forward in inference mode (running mean and variance).
#include "ir/ops/reference/Ops.h"

#include <algorithm>
#include <cmath>

namespace nasc::ir::reference {

OpOutputs batchNormalization(const ir::Node &node, const OpInputs &inputs) {
  requireIntAttribute(node, "training_mode", 0);
  requireAtMostOutputs(node, 1);
  const ir::Tensor &x = floatInput(node, inputs, 0, "X");
  if (x.shape.size() < 2)
    fail(node, "input X " + ir::shapeToString(x.shape) + " must have rank >= 2");
  const int64_t channels = x.shape[1];
  const ir::Tensor &scale = channelInput(node, inputs, 1, "scale", channels);
  const ir::Tensor &bias = channelInput(node, inputs, 2, "B", channels);
  const ir::Tensor &mean = channelInput(node, inputs, 3, "input_mean", channels);
  const ir::Tensor &var = channelInput(node, inputs, 4, "input_var", channels);
  const float epsilon = node.getFloat("epsilon", 1e-5f);
  const int64_t plane = x.size() / std::max<int64_t>(x.shape[0] * channels, 1);
  ir::Tensor y = ir::Tensor::zeros(x.shape);
  for (int64_t n = 0; n < x.shape[0]; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      const float factor = scale.f[c] / std::sqrt(var.f[c] + epsilon);
      const float shift = bias.f[c] - mean.f[c] * factor;
      const int64_t offset = (n * channels + c) * plane;
      for (int64_t k = 0; k < plane; ++k)
        y.f[offset + k] = x.f[offset + k] * factor + shift;
    }
  return {std::move(y)};
}

} // namespace nasc::ir::reference
