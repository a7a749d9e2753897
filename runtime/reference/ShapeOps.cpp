// Flatten, Concat, Reshape, Identity, Dropout (inference) and Constant: ops that move data
// without arithmetic.
#include "runtime/reference/Ops.h"

#include <algorithm>

namespace nasc::runtime::reference {

namespace {

const ir::Tensor &anyInput(const ir::Node &node, const OpInputs &inputs, size_t index,
                           const char *role) {
  const ir::Tensor *t = optionalInput(inputs, index);
  if (!t)
    fail(node, std::string("input ") + role + " (#" + std::to_string(index) + ") is missing");
  return *t;
}

ir::Tensor reshaped(const ir::Tensor &t, const ir::Shape &shape) {
  ir::Tensor result = t;
  result.shape = shape;
  return result;
}

int64_t product(const ir::Shape &shape, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t k = begin; k < end; ++k)
    n *= shape[k];
  return n;
}

void checkConcatShape(const ir::Node &node, const ir::Shape &first, const ir::Shape &other,
                      size_t axis) {
  bool same = first.size() == other.size();
  for (size_t k = 0; same && k < first.size(); ++k)
    same = k == axis || first[k] == other[k];
  if (!same)
    fail(node, "input shapes " + ir::shapeToString(first) + " and " + ir::shapeToString(other) +
                   " differ outside axis " + std::to_string(axis));
}

/// Target shape of Reshape: 0 copies the input dimension (unless allowzero), one -1 is inferred.
ir::Shape reshapeTarget(const ir::Node &node, const ir::Shape &input,
                        const std::vector<int64_t> &requested) {
  const bool allowZero = node.getInt("allowzero", 0) != 0;
  ir::Shape shape = requested;
  int64_t inferred = -1, known = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 0 && !allowZero) {
      if (k >= input.size())
        fail(node, "shape entry " + std::to_string(k) + " is 0 but the input has rank " +
                       std::to_string(input.size()));
      shape[k] = input[k];
    }
    if (shape[k] == -1) {
      if (inferred >= 0)
        fail(node, "shape has more than one -1");
      inferred = static_cast<int64_t>(k);
    } else if (shape[k] < 0) {
      fail(node, "shape entry " + std::to_string(shape[k]) + " is invalid");
    } else {
      known *= shape[k];
    }
  }
  const int64_t total = ir::numElements(input);
  if (inferred >= 0 && known != 0 && total % known == 0)
    shape[static_cast<size_t>(inferred)] = total / known;
  if (ir::numElements(shape) != total || (inferred >= 0 && shape[inferred] < 0))
    fail(node, "cannot reshape " + ir::shapeToString(input) + " to the requested shape");
  return shape;
}

ir::Tensor int64Tensor(const ir::Shape &shape, std::vector<int64_t> data) {
  ir::Tensor t;
  t.dtype = ir::DType::Int64;
  t.shape = shape;
  t.i = std::move(data);
  return t;
}

} // namespace

OpOutputs flatten(const ir::Node &node, const OpInputs &inputs) {
  const ir::Tensor &x = anyInput(node, inputs, 0, "input");
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const size_t axis = static_cast<size_t>(normalizeAxis(node, node.getInt("axis", 1), rank, 1));
  return {reshaped(x, {product(x.shape, 0, axis), product(x.shape, axis, x.shape.size())})};
}

OpOutputs concat(const ir::Node &node, const OpInputs &inputs) {
  if (!node.has("axis"))
    fail(node, "attribute 'axis' is missing");
  const ir::Tensor &first = floatInput(node, inputs, 0, "inputs");
  const size_t axis = static_cast<size_t>(
      normalizeAxis(node, node.getInt("axis", 0), static_cast<int64_t>(first.shape.size())));
  ir::Shape shape = first.shape;
  shape[axis] = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const ir::Tensor &t = floatInput(node, inputs, k, "inputs");
    checkConcatShape(node, first.shape, t.shape, axis);
    shape[axis] += t.shape[axis];
  }
  const int64_t outer = product(shape, 0, axis), inner = product(shape, axis + 1, shape.size());
  ir::Tensor y = ir::Tensor::zeros(shape);
  int64_t offset = 0;
  for (const ir::Tensor *t : inputs) {
    const int64_t block = t->shape[axis] * inner;
    for (int64_t o = 0; o < outer; ++o)
      std::copy_n(t->f.begin() + o * block, block, y.f.begin() + o * shape[axis] * inner + offset);
    offset += block;
  }
  return {std::move(y)};
}

OpOutputs reshape(const ir::Node &node, const OpInputs &inputs) {
  const ir::Tensor &data = anyInput(node, inputs, 0, "data");
  const ir::Tensor &shape = anyInput(node, inputs, 1, "shape");
  if (shape.dtype != ir::DType::Int64 || shape.shape.size() != 1)
    fail(node, "input shape must be a 1-d int64 tensor");
  return {reshaped(data, reshapeTarget(node, data.shape, shape.i))};
}

OpOutputs identity(const ir::Node &node, const OpInputs &inputs) {
  return {anyInput(node, inputs, 0, "input")};
}

OpOutputs dropout(const ir::Node &node, const OpInputs &inputs) {
  requireAtMostOutputs(node, 1);
  if (const ir::Tensor *training = optionalInput(inputs, 2))
    if (training->dtype != ir::DType::Int64 ||
        std::any_of(training->i.begin(), training->i.end(), [](int64_t v) { return v != 0; }))
      fail(node, "input training_mode: only false (inference) is supported");
  return {anyInput(node, inputs, 0, "data")};
}

OpOutputs constant(const ir::Node &node, const OpInputs &) {
  if (node.attributes.size() != 1)
    fail(node, "exactly one value attribute is expected");
  const auto &[name, value] = *node.attributes.begin();
  if (name == "value" && std::holds_alternative<ir::Tensor>(value))
    return {std::get<ir::Tensor>(value)};
  if (name == "value_float")
    return {floatTensor({}, {node.getFloat(name, 0)})};
  if (name == "value_floats" && std::holds_alternative<std::vector<float>>(value)) {
    const auto &floats = std::get<std::vector<float>>(value);
    return {floatTensor({static_cast<int64_t>(floats.size())}, floats)};
  }
  if (name == "value_int")
    return {int64Tensor({}, {node.getInt(name, 0)})};
  if (name == "value_ints") {
    const std::vector<int64_t> ints = node.getInts(name, {});
    return {int64Tensor({static_cast<int64_t>(ints.size())}, ints)};
  }
  fail(node, "attribute '" + name + "' is not supported");
}

} // namespace nasc::runtime::reference
