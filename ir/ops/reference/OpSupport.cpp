#include "ir/ops/reference/OpSupport.h"

#include "ir/Error.h"

#include <limits>

namespace nasc::ir::reference {

void fail(const ir::Node &node, const std::string &message) {
  throw Error(node.describe() + ": " + message);
}

const ir::Tensor &floatInput(const ir::Node &node, const OpInputs &inputs, size_t index,
                             const char *role) {
  const ir::Tensor *tensor = optionalInput(inputs, index);
  if (!tensor)
    fail(node, std::string("input ") + role + " (#" + std::to_string(index) + ") is missing");
  if (tensor->dtype != ir::DType::Float32)
    fail(node,
         std::string("input '") + role + "': element type other than float32 is not supported");
  return *tensor;
}

const ir::Tensor &channelInput(const ir::Node &node, const OpInputs &inputs, size_t index,
                               const char *role, int64_t channels) {
  const ir::Tensor &t = floatInput(node, inputs, index, role);
  if (t.shape != ir::Shape{channels})
    fail(node, std::string("input ") + role + " " + ir::shapeToString(t.shape) +
                   " must have shape " + std::to_string(channels));
  return t;
}

const ir::Tensor *optionalInput(const OpInputs &inputs, size_t index) {
  return index < inputs.size() ? inputs[index] : nullptr;
}

void requireAtMostOutputs(const ir::Node &node, size_t count) {
  for (size_t k = count; k < node.outputs.size(); ++k)
    if (!node.outputs[k].empty())
      fail(node, "output #" + std::to_string(k) + " ('" + node.outputs[k] +
                     "') is not supported (at most " + std::to_string(count) + ")");
}

void requireIntAttribute(const ir::Node &node, const std::string &attr, int64_t expected) {
  if (node.has(attr) && node.getInt(attr, expected) != expected)
    fail(node, "attribute '" + attr + "': value " + std::to_string(node.getInt(attr, expected)) +
                   " is not supported (only " + std::to_string(expected) + ")");
}

int64_t normalizeAxis(const ir::Node &node, int64_t axis, int64_t rank, int64_t extra) {
  if (axis < -rank || axis >= rank + extra)
    fail(node, "attribute 'axis': value " + std::to_string(axis) + " is out of range for rank " +
                   std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

namespace {

/// Clip's bound `role` ("min" or "max"): the scalar input `index` (Clip-11+) when given, else
/// the attribute of that name (Clip-6), else `fallback`.
float clipBound(const ir::Node &node, const OpInputs &inputs, size_t index, const char *role,
                float fallback) {
  if (!optionalInput(inputs, index))
    return node.getFloat(role, fallback);
  const ir::Tensor &bound = floatInput(node, inputs, index, role);
  if (bound.size() != 1)
    fail(node, std::string("input '") + role + "' " + ir::shapeToString(bound.shape) +
                   " must be a scalar");
  return bound.f[0];
}

} // namespace

std::pair<float, float> clipBounds(const ir::Node &node, const OpInputs &inputs) {
  return {clipBound(node, inputs, 1, "min", std::numeric_limits<float>::lowest()),
          clipBound(node, inputs, 2, "max", std::numeric_limits<float>::max())};
}

ir::Tensor floatTensor(const ir::Shape &shape, std::vector<float> data) {
  ir::Tensor tensor;
  tensor.shape = shape;
  tensor.f = std::move(data);
  return tensor;
}

} // namespace nasc::ir::reference
