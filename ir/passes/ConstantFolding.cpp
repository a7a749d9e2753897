#include "ir/passes/ConstantFolding.h"

#include "ir/Error.h"
#include "ir/passes/GraphEdit.h"
#include "ir/passes/ShapeInference.h"

#include <algorithm>

namespace nasc::ir {

namespace {

/// Row-major offset into a tensor of `shape` of the broadcast index `index` (of `outShape`).
int64_t broadcastOffset(const Shape &shape, const Shape &outShape, const Shape &index) {
  int64_t offset = 0;
  const size_t lead = outShape.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    offset = offset * shape[d] + (shape[d] == 1 ? 0 : index[lead + d]);
  return offset;
}

void advance(Shape &index, const Shape &shape) {
  for (size_t d = shape.size(); d-- > 0;) {
    if (++index[d] < shape[d])
      return;
    index[d] = 0;
  }
}

Tensor addTensors(const Tensor &a, const Tensor &b, const Node &node) {
  if (a.dtype != b.dtype)
    throw Error(node.describe() + ": inputs have different element types");
  Tensor out;
  out.dtype = a.dtype;
  out.shape = broadcastShapes(a.shape, b.shape, node.describe());
  Shape index(out.shape.size(), 0);
  for (int64_t k = 0; k < numElements(out.shape); ++k, advance(index, out.shape)) {
    const int64_t ia = broadcastOffset(a.shape, out.shape, index);
    const int64_t ib = broadcastOffset(b.shape, out.shape, index);
    if (out.dtype == DType::Float32)
      out.f.push_back(a.f[ia] + b.f[ib]);
    else
      out.i.push_back(a.i[ia] + b.i[ib]);
  }
  return out;
}

Tensor concatTensors(const std::vector<const Tensor *> &inputs, const Shape &outShape,
                     int64_t axis) {
  Tensor out;
  out.dtype = inputs[0]->dtype;
  out.shape = outShape;
  const int64_t outer = numElements(Shape(outShape.begin(), outShape.begin() + axis));
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor *t : inputs) {
      const int64_t block = numElements(Shape(t->shape.begin() + axis, t->shape.end()));
      if (out.dtype == DType::Float32)
        out.f.insert(out.f.end(), t->f.begin() + o * block, t->f.begin() + (o + 1) * block);
      else
        out.i.insert(out.i.end(), t->i.begin() + o * block, t->i.begin() + (o + 1) * block);
    }
  return out;
}

/// The folded value of `node` (inputs all initializers), or nullopt if the op is not folded.
std::optional<Tensor> foldNode(Graph &graph, const Node &node) {
  static const std::vector<std::string> folded = {"Identity", "Reshape", "Flatten", "Concat",
                                                  "Add"};
  if (std::find(folded.begin(), folded.end(), node.op_type) == folded.end())
    return std::nullopt;
  std::vector<const Tensor *> inputs;
  for (const std::string &in : node.inputs)
    inputs.push_back(&graph.initializers.at(in));
  if (node.op_type == "Add")
    return addTensors(*inputs[0], *inputs[1], node);
  Graph scratch;
  scratch.source = graph.source;
  scratch.nodes = {node};
  for (const std::string &in : node.inputs)
    scratch.initializers[in] = graph.initializers.at(in);
  inferShapes(scratch);
  const Shape &outShape = scratch.values.at(node.outputs[0]).shape;
  if (node.op_type == "Concat") {
    const int64_t rank = static_cast<int64_t>(outShape.size());
    const int64_t axis = node.getInt("axis", 0);
    return concatTensors(inputs, outShape, axis < 0 ? axis + rank : axis);
  }
  Tensor out = *inputs[0];
  out.shape = outShape;
  return out;
}

bool allInputsConstant(const Graph &graph, const Node &node) {
  return std::all_of(node.inputs.begin(), node.inputs.end(),
                     [&](const std::string &in) { return graph.isInitializer(in); });
}

void addInitializer(Graph &graph, const std::string &name, Tensor tensor) {
  graph.values[name] = ValueInfo{tensor.dtype, tensor.shape};
  graph.initializers[name] = std::move(tensor);
}

/// Folds node `index` if it can be; returns whether it was removed.
bool foldAt(Graph &graph, size_t index) {
  const Node &node = graph.nodes[index];
  if (node.outputs.size() != 1)
    return false;
  std::optional<Tensor> value;
  if (node.op_type == "Constant")
    value = constantNodeValue(node);
  else if (!isGraphOutput(graph, node.outputs[0]) && !node.inputs.empty() &&
           allInputsConstant(graph, node))
    value = foldNode(graph, node);
  if (!value)
    return false;
  addInitializer(graph, node.outputs[0], std::move(*value));
  graph.nodes.erase(graph.nodes.begin() + static_cast<std::ptrdiff_t>(index));
  return true;
}

void foldAll(Graph &graph) {
  for (size_t k = 0; k < graph.nodes.size();) {
    if (foldAt(graph, k))
      continue;
    ++k;
  }
}

} // namespace

Tensor constantNodeValue(const Node &node) {
  if (auto it = node.attributes.find("value"); it != node.attributes.end()) {
    if (const Tensor *value = std::get_if<Tensor>(&it->second))
      return *value;
    throw Error(node.describe() + ": attribute 'value': must be a TENSOR");
  }
  Tensor t;
  if (node.has("value_float")) {
    t.f = {node.getFloat("value_float", 0.0f)};
  } else if (node.has("value_floats")) {
    const auto *values = std::get_if<std::vector<float>>(&node.attributes.at("value_floats"));
    if (!values)
      throw Error(node.describe() + ": attribute 'value_floats': must be FLOATS");
    t.f = *values;
    t.shape = {static_cast<int64_t>(t.f.size())};
  } else if (node.has("value_int")) {
    t.dtype = DType::Int64;
    t.i = {node.getInt("value_int", 0)};
  } else if (node.has("value_ints")) {
    t.dtype = DType::Int64;
    t.i = node.getInts("value_ints", {});
    t.shape = {static_cast<int64_t>(t.i.size())};
  } else {
    throw Error(node.describe() + ": no supported value attribute (value, value_float(s), "
                                  "value_int(s))");
  }
  return t;
}

void foldConstants(Graph &graph) {
  try {
    foldAll(graph);
  } catch (const Error &e) {
    const std::string message = e.what();
    throw message.starts_with(graph.source + ": ") ? e : Error(graph.source + ": " + message);
  }
  removeUnusedInitializers(graph);
}

} // namespace nasc::ir
