#include "ir/import/OnnxImporter.h"

#include "ir/Error.h"
#include "ir/import/OnnxTensor.h"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <set>

namespace nasc::ir {

namespace {

constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 17;

onnx::ModelProto parseModel(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open file");
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&in))
    throw Error(path + ": not a valid ONNX model (protobuf parse failed)");
  return model;
}

void checkOpset(const onnx::ModelProto &model, const std::string &path) {
  for (const auto &opset : model.opset_import()) {
    if (!opset.domain().empty() && opset.domain() != "ai.onnx")
      continue;
    if (opset.version() < kMinOpset || opset.version() > kMaxOpset)
      throw Error(path + ": opset " + std::to_string(opset.version()) +
                  " is not supported (nasc reads opsets " + std::to_string(kMinOpset) + "-" +
                  std::to_string(kMaxOpset) + ")");
  }
}

DType dtypeOf(int32_t elemType, const std::string &where) {
  if (elemType == onnx::TensorProto::FLOAT)
    return DType::Float32;
  if (elemType == onnx::TensorProto::INT64)
    return DType::Int64;
  throw Error(where + ": element type " +
              onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(elemType)) +
              " is not supported (only FLOAT and INT64)");
}

/// The shape of `info`, or nullopt when some dimension is symbolic or the shape is absent.
/// `symbolic` receives the name of the first dim_param met. A negative dimension throws
/// nasc::Error naming `path` and the value.
std::optional<Shape> staticShape(const onnx::ValueInfoProto &info, std::string &symbolic,
                                 const std::string &path) {
  const auto &type = info.type().tensor_type();
  if (!type.has_shape())
    return std::nullopt;
  Shape shape;
  for (const auto &dim : type.shape().dim()) {
    if (!dim.has_dim_value()) {
      symbolic = dim.has_dim_param() ? dim.dim_param() : "?";
      return std::nullopt;
    }
    if (dim.dim_value() < 0)
      throw Error(path + ": value '" + info.name() + "' has a negative dimension (" +
                  std::to_string(dim.dim_value()) + ")");
    shape.push_back(dim.dim_value());
  }
  return shape;
}

void checkTensorType(const onnx::ValueInfoProto &info, const std::string &path) {
  if (!info.type().has_tensor_type())
    throw Error(path + ": value '" + info.name() +
                "' is not a tensor (sequences, maps and "
                "optionals are not supported)");
}

bool isSupportedElemType(int32_t elemType) {
  return elemType == onnx::TensorProto::FLOAT || elemType == onnx::TensorProto::INT64;
}

/// A graph output must be a float32 or int64 tensor.
void checkOutputType(const onnx::ValueInfoProto &info, const std::string &path) {
  checkTensorType(info, path);
  dtypeOf(info.type().tensor_type().elem_type(), path + ": graph output '" + info.name() + "'");
}

/// Records the type of a graph output when fully known.
void addOutputInfo(Graph &graph, const onnx::ValueInfoProto &info, const std::string &path) {
  DType dtype =
      dtypeOf(info.type().tensor_type().elem_type(), path + ": graph output '" + info.name() + "'");
  std::string symbolic;
  if (std::optional<Shape> shape = staticShape(info, symbolic, path))
    graph.values[info.name()] = ValueInfo{dtype, *shape};
}

/// Records the type of an intermediate value when it is a fully known float32 / int64 tensor
/// (other annotations, e.g. a Dropout mask's BOOL, are left to the op checks).
void addValueInfo(Graph &graph, const onnx::ValueInfoProto &info, const std::string &path) {
  if (!info.type().has_tensor_type() || !isSupportedElemType(info.type().tensor_type().elem_type()))
    return;
  DType dtype = dtypeOf(info.type().tensor_type().elem_type(), info.name());
  std::string symbolic;
  if (std::optional<Shape> shape = staticShape(info, symbolic, path))
    graph.values[info.name()] = ValueInfo{dtype, *shape};
}

void addGraphInput(Graph &graph, const onnx::ValueInfoProto &info, const std::string &path,
                   const std::map<std::string, Shape> &overrides) {
  checkTensorType(info, path);
  const std::string where = path + ": graph input '" + info.name() + "'";
  DType dtype = dtypeOf(info.type().tensor_type().elem_type(), where);
  graph.inputs.push_back(info.name());
  if (auto it = overrides.find(info.name()); it != overrides.end()) {
    graph.values[info.name()] = ValueInfo{dtype, it->second};
    return;
  }
  std::string symbolic;
  std::optional<Shape> shape = staticShape(info, symbolic, path);
  if (!shape && !symbolic.empty())
    throw Error(where + ": symbolic dimension '" + symbolic +
                "' (give the input's shape as an override)");
  if (!shape)
    throw Error(where + ": shape is missing (give the input's shape as an override)");
  graph.values[info.name()] = ValueInfo{dtype, *shape};
}

Attribute attributeFromProto(const onnx::AttributeProto &attr, const std::string &where) {
  switch (attr.type()) {
  case onnx::AttributeProto::INT:
    return static_cast<int64_t>(attr.i());
  case onnx::AttributeProto::FLOAT:
    return attr.f();
  case onnx::AttributeProto::STRING:
    return attr.s();
  case onnx::AttributeProto::INTS:
    return std::vector<int64_t>(attr.ints().begin(), attr.ints().end());
  case onnx::AttributeProto::FLOATS:
    return std::vector<float>(attr.floats().begin(), attr.floats().end());
  case onnx::AttributeProto::TENSOR:
    return tensorFromProto(attr.t(), where);
  default:
    throw Error(where + ": attribute kind " +
                onnx::AttributeProto::AttributeType_Name(attr.type()) + " is not supported");
  }
}

std::string nodeName(const onnx::NodeProto &proto, size_t index) {
  if (!proto.name().empty())
    return proto.name();
  if (proto.output_size() > 0 && !proto.output(0).empty())
    return proto.output(0);
  return proto.op_type() + "_" + std::to_string(index);
}

Node nodeFromProto(const onnx::NodeProto &proto, size_t index, const std::string &path) {
  Node node;
  node.name = nodeName(proto, index);
  node.op_type = proto.op_type();
  if (!proto.domain().empty() && proto.domain() != "ai.onnx")
    throw Error(path + ": " + node.describe() + ": domain '" + proto.domain() +
                "' is not supported");
  node.inputs.assign(proto.input().begin(), proto.input().end());
  node.outputs.assign(proto.output().begin(), proto.output().end());
  for (const auto &attr : proto.attribute()) {
    const std::string where = path + ": " + node.describe() + ": attribute '" + attr.name() + "'";
    node.attributes[attr.name()] = attributeFromProto(attr, where);
  }
  return node;
}

void addInitializers(Graph &graph, const onnx::GraphProto &proto, const std::string &path) {
  if (proto.sparse_initializer_size() > 0)
    throw Error(path + ": sparse initializers are not supported");
  for (const auto &init : proto.initializer()) {
    Tensor tensor = tensorFromProto(init, path);
    graph.values[init.name()] = ValueInfo{tensor.dtype, tensor.shape};
    graph.initializers[init.name()] = std::move(tensor);
  }
}

void checkOverridesNameInputs(const onnx::GraphProto &proto, const std::string &path,
                              const std::map<std::string, Shape> &overrides) {
  std::set<std::string> inputs;
  for (const auto &input : proto.input())
    inputs.insert(input.name());
  for (const auto &[name, shape] : overrides)
    if (!inputs.count(name))
      throw Error(path + ": shape override for '" + name + "': no such graph input");
}

} // namespace

Graph importOnnx(const std::string &path, const std::map<std::string, Shape> &shapeOverrides) {
  onnx::ModelProto model = parseModel(path);
  checkOpset(model, path);
  const onnx::GraphProto &proto = model.graph();
  Graph graph;
  graph.name = proto.name();
  graph.source = path;
  checkOverridesNameInputs(proto, path, shapeOverrides);
  addInitializers(graph, proto, path);
  for (const auto &input : proto.input())
    if (!graph.isInitializer(input.name()))
      addGraphInput(graph, input, path, shapeOverrides);
  const bool keepDeclaredShapes = shapeOverrides.empty();
  if (keepDeclaredShapes)
    for (const auto &info : proto.value_info())
      addValueInfo(graph, info, path);
  for (const auto &output : proto.output()) {
    checkOutputType(output, path);
    if (keepDeclaredShapes)
      addOutputInfo(graph, output, path);
    graph.outputs.push_back(output.name());
  }
  for (int k = 0; k < proto.node_size(); ++k)
    graph.nodes.push_back(nodeFromProto(proto.node(k), static_cast<size_t>(k), path));
  return graph;
}

} // namespace nasc::ir
