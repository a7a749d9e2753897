// Relu and Clip forward, and Add, Sub, Mul, Div with multidirectional broadcasting.
#include "ir/ops/reference/Broadcast.h"
#include "ir/ops/reference/Ops.h"

#include <Eigen/Core>

#include <functional>

namespace nasc::ir::reference {

namespace {

Eigen::Map<const Eigen::ArrayXf> asArray(const std::vector<float> &data) {
  return {data.data(), static_cast<Eigen::Index>(data.size())};
}

/// C = op(A, B) elementwise on float32 A and B broadcast to their common shape (ONNX
/// Broadcasting.md); `op` maps two Eigen arrays to an array expression.
template <typename Op>
OpOutputs broadcastBinary(const ir::Node &node, const OpInputs &inputs, Op op) {
  const ir::Tensor &a = floatInput(node, inputs, 0, "A");
  const ir::Tensor &b = floatInput(node, inputs, 1, "B");
  const std::optional<ir::Shape> shape = broadcastShapes(a.shape, b.shape);
  if (!shape)
    fail(node, "inputs A " + ir::shapeToString(a.shape) + " and B " + ir::shapeToString(b.shape) +
                   " do not broadcast");
  const std::vector<float> left = broadcastTo(a, *shape), right = broadcastTo(b, *shape);
  ir::Tensor c = ir::Tensor::zeros(*shape);
  Eigen::Map<Eigen::ArrayXf>(c.f.data(), c.size()) = op(asArray(left), asArray(right));
  return {std::move(c)};
}

} // namespace

OpOutputs relu(const ir::Node &node, const OpInputs &inputs) {
  const ir::Tensor &x = floatInput(node, inputs, 0, "X");
  ir::Tensor y = ir::Tensor::zeros(x.shape);
  Eigen::Map<Eigen::ArrayXf>(y.f.data(), y.size()) = asArray(x.f).max(0.0f);
  return {std::move(y)};
}

OpOutputs clip(const ir::Node &node, const OpInputs &inputs) {
  const ir::Tensor &x = floatInput(node, inputs, 0, "input");
  const auto [low, high] = clipBounds(node, inputs);
  ir::Tensor y = ir::Tensor::zeros(x.shape);
  Eigen::Map<Eigen::ArrayXf>(y.f.data(), y.size()) = asArray(x.f).max(low).min(high);
  return {std::move(y)};
}

OpOutputs add(const ir::Node &node, const OpInputs &inputs) {
  return broadcastBinary(node, inputs, std::plus<>());
}

OpOutputs sub(const ir::Node &node, const OpInputs &inputs) {
  return broadcastBinary(node, inputs, std::minus<>());
}

OpOutputs mul(const ir::Node &node, const OpInputs &inputs) {
  return broadcastBinary(node, inputs, std::multiplies<>());
}

OpOutputs div(const ir::Node &node, const OpInputs &inputs) {
  return broadcastBinary(node, inputs, std::divides<>());
}

} // namespace nasc::ir::reference
