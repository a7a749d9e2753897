// Relu and Add forward (Add with multidirectional broadcasting).
#include "runtime/reference/Broadcast.h"
#include "runtime/reference/Ops.h"

#include <Eigen/Core>

namespace nasc::runtime::reference {

namespace {

Eigen::Map<const Eigen::ArrayXf> asArray(const std::vector<float> &data) {
  return {data.data(), static_cast<Eigen::Index>(data.size())};
}

} // namespace

OpOutputs relu(const ir::Node &node, const OpInputs &inputs) {
  const ir::Tensor &x = floatInput(node, inputs, 0, "X");
  ir::Tensor y = ir::Tensor::zeros(x.shape);
  Eigen::Map<Eigen::ArrayXf>(y.f.data(), y.size()) = asArray(x.f).max(0.0f);
  return {std::move(y)};
}

OpOutputs add(const ir::Node &node, const OpInputs &inputs) {
  const ir::Tensor &a = floatInput(node, inputs, 0, "A");
  const ir::Tensor &b = floatInput(node, inputs, 1, "B");
  const std::optional<ir::Shape> shape = broadcastShapes(a.shape, b.shape);
  if (!shape)
    fail(node, "inputs A " + ir::shapeToString(a.shape) + " and B " + ir::shapeToString(b.shape) +
                   " do not broadcast");
  ir::Tensor c = ir::Tensor::zeros(*shape);
  Eigen::Map<Eigen::ArrayXf>(c.f.data(), c.size()) =
      asArray(broadcastTo(a, *shape)) + asArray(broadcastTo(b, *shape));
  return {std::move(c)};
}

} // namespace nasc::runtime::reference
