// Flatten, Concat, Reshape, Squeeze, Unsqueeze, Identity, Dropout (inference) and Constant: ops
// that move data without arithmetic.
#include "ir/ops/reference/Ops.h"

#include <algorithm>
#include <optional>

namespace nasc::ir::reference {

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

/// Axes of Squeeze / Unsqueeze: the int64 input 1 (opset 13) when given, else attribute 'axes'
/// (opsets 1-11), else nullopt.
std::optional<std::vector<int64_t>> axesOf(const ir::Node &node, const OpInputs &inputs) {
  if (const ir::Tensor *axes = optionalInput(inputs, 1)) {
    if (axes->dtype != ir::DType::Int64 || axes->shape.size() != 1)
      fail(node, "input axes must be a 1-d int64 tensor");
    return axes->i;
  }
  if (node.has("axes"))
    return node.getInts("axes", {});
  return std::nullopt;
}

/// `axes` in [-rank, rank) normalised to [0, rank) and sorted; throws nasc::Error naming the node
/// for an axis out of range or repeated.
std::vector<int64_t> normalizedAxes(const ir::Node &node, std::vector<int64_t> axes, int64_t rank) {
  for (int64_t &axis : axes) {
    if (axis < -rank || axis >= rank)
      fail(node, "axes: value " + std::to_string(axis) + " is out of range for rank " +
                     std::to_string(rank));
    axis = axis < 0 ? axis + rank : axis;
  }
  std::sort(axes.begin(), axes.end());
  if (auto repeated = std::adjacent_find(axes.begin(), axes.end()); repeated != axes.end())
    fail(node, "axes: axis " + std::to_string(*repeated) + " is repeated");
  return axes;
}

/// Shape of Squeeze's output: `input` without the dimensions `axes` (all dimensions of 1 when
/// nullopt); throws nasc::Error naming the node for a listed dimension other than 1.
ir::Shape squeezedShape(const ir::Node &node, const ir::Shape &input,
                        const std::optional<std::vector<int64_t>> &axes) {
  const int64_t rank = static_cast<int64_t>(input.size());
  std::vector<bool> removed(input.size());
  for (size_t k = 0; k < input.size(); ++k)
    removed[k] = !axes && input[k] == 1;
  for (int64_t axis : axes ? normalizedAxes(node, *axes, rank) : std::vector<int64_t>{}) {
    if (input[axis] != 1)
      fail(node, "cannot squeeze axis " + std::to_string(axis) + " of size " +
                     std::to_string(input[axis]) + " (input " + ir::shapeToString(input) + ")");
    removed[axis] = true;
  }
  ir::Shape shape;
  for (size_t k = 0; k < input.size(); ++k)
    if (!removed[k])
      shape.push_back(input[k]);
  return shape;
}

/// Shape of Unsqueeze's output: `input` with a dimension of 1 inserted at each of `axes`
/// (positions in the output, of rank input rank + number of axes).
ir::Shape unsqueezedShape(const ir::Node &node, const ir::Shape &input,
                          const std::vector<int64_t> &axes) {
  const int64_t rank = static_cast<int64_t>(input.size() + axes.size());
  const std::vector<int64_t> inserted = normalizedAxes(node, axes, rank);
  ir::Shape shape;
  auto next = input.begin();
  for (int64_t k = 0; k < rank; ++k)
    shape.push_back(std::binary_search(inserted.begin(), inserted.end(), k) ? 1 : *next++);
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

OpOutputs squeeze(const ir::Node &node, const OpInputs &inputs) {
  const ir::Tensor &data = anyInput(node, inputs, 0, "data");
  return {reshaped(data, squeezedShape(node, data.shape, axesOf(node, inputs)))};
}

OpOutputs unsqueeze(const ir::Node &node, const OpInputs &inputs) {
  const ir::Tensor &data = anyInput(node, inputs, 0, "data");
  const std::optional<std::vector<int64_t>> axes = axesOf(node, inputs);
  if (!axes)
    fail(node, "axes (input #1 or attribute 'axes') is missing");
  return {reshaped(data, unsqueezedShape(node, data.shape, *axes))};
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

} // namespace nasc::ir::reference
