// BatchNormalization in training mode: batch statistics forward, and its input gradient.
#include "ir/ops/reference/Gradients.h"

#include <cmath>

namespace nasc::ir::reference {

namespace {

/// Per-channel batch statistics of X (N,C,...): mean and 1/sqrt(biased var + epsilon).
struct BatchStatistics {
  int64_t batch, channels, plane;
  std::vector<double> mean, invStd;
};

BatchStatistics batchStatistics(const ir::Node &node, const ir::Tensor &x) {
  if (x.shape.size() < 2 || x.shape[0] == 0)
    fail(node, "input X " + ir::shapeToString(x.shape) + " must have rank >= 2 and a batch");
  BatchStatistics s{x.shape[0], x.shape[1], x.size() / (x.shape[0] * x.shape[1]), {}, {}};
  const double count = static_cast<double>(s.batch * s.plane);
  const double epsilon = node.getFloat("epsilon", 1e-5f);
  s.mean.assign(s.channels, 0.0);
  s.invStd.assign(s.channels, 0.0);
  for (int64_t c = 0; c < s.channels; ++c) {
    double sum = 0, squares = 0;
    for (int64_t n = 0; n < s.batch; ++n)
      for (int64_t k = 0; k < s.plane; ++k)
        sum += x.f[(n * s.channels + c) * s.plane + k];
    s.mean[c] = sum / count;
    for (int64_t n = 0; n < s.batch; ++n)
      for (int64_t k = 0; k < s.plane; ++k) {
        const double d = x.f[(n * s.channels + c) * s.plane + k] - s.mean[c];
        squares += d * d;
      }
    s.invStd[c] = 1.0 / std::sqrt(squares / count + epsilon);
  }
  return s;
}

} // namespace

OpOutputs batchNormalizationTraining(const ir::Node &node, const OpInputs &inputs) {
  const ir::Tensor &x = floatInput(node, inputs, 0, "X");
  const BatchStatistics s = batchStatistics(node, x);
  const ir::Tensor &scale = channelInput(node, inputs, 1, "scale", s.channels);
  const ir::Tensor &bias = channelInput(node, inputs, 2, "B", s.channels);
  ir::Tensor y = ir::Tensor::zeros(x.shape);
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t c = 0; c < s.channels; ++c)
      for (int64_t k = 0; k < s.plane; ++k) {
        const int64_t i = (n * s.channels + c) * s.plane + k;
        y.f[i] = static_cast<float>((x.f[i] - s.mean[c]) * s.invStd[c] * scale.f[c] + bias.f[c]);
      }
  return {std::move(y)};
}

InputGradients batchNormalizationTrainingBackward(const BackwardArgs &args) {
  const ir::Tensor &x = floatInput(args.node, args.inputs, 0, "X");
  const BatchStatistics s = batchStatistics(args.node, x);
  const ir::Tensor &scale = channelInput(args.node, args.inputs, 1, "scale", s.channels);
  const double count = static_cast<double>(s.batch * s.plane);
  ir::Tensor dx = ir::Tensor::zeros(x.shape);
  for (int64_t c = 0; c < s.channels; ++c) {
    double sumDy = 0, sumDyXhat = 0;
    for (int64_t n = 0; n < s.batch; ++n)
      for (int64_t k = 0; k < s.plane; ++k) {
        const int64_t i = (n * s.channels + c) * s.plane + k;
        sumDy += args.dy.f[i];
        sumDyXhat += args.dy.f[i] * (x.f[i] - s.mean[c]) * s.invStd[c];
      }
    const double meanDy = sumDy / count, meanDyXhat = sumDyXhat / count;
    for (int64_t n = 0; n < s.batch; ++n)
      for (int64_t k = 0; k < s.plane; ++k) {
        const int64_t i = (n * s.channels + c) * s.plane + k;
        const double xhat = (x.f[i] - s.mean[c]) * s.invStd[c];
        dx.f[i] = static_cast<float>(scale.f[c] * s.invStd[c] *
                                     (args.dy.f[i] - meanDy - xhat * meanDyXhat));
      }
  }
  InputGradients grads(args.node.inputs.size());
  grads[0] = std::move(dx);
  return grads;
}

} // namespace nasc::ir::reference
