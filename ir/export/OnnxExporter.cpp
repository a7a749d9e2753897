#include "ir/export/OnnxExporter.h"

#include "ir/Error.h"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <type_traits>

namespace nasc::ir {

namespace {

constexpr int64_t kIrVersion = 8;
constexpr int64_t kOpset = 13;

int32_t elemType(DType dtype) {
  return dtype == DType::Float32 ? onnx::TensorProto::FLOAT : onnx::TensorProto::INT64;
}

template <typename T> std::string rawBytes(const std::vector<T> &values) {
  return std::string(reinterpret_cast<const char *>(values.data()), values.size() * sizeof(T));
}

void fillTensor(onnx::TensorProto &proto, const std::string &name, const Tensor &tensor) {
  proto.set_name(name);
  proto.set_data_type(elemType(tensor.dtype));
  for (int64_t d : tensor.shape)
    proto.add_dims(d);
  proto.set_raw_data(tensor.dtype == DType::Float32 ? rawBytes(tensor.f) : rawBytes(tensor.i));
}

void fillAttribute(onnx::AttributeProto &proto, const std::string &name, const Attribute &value) {
  proto.set_name(name);
  std::visit(
      [&](const auto &v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, int64_t>) {
          proto.set_type(onnx::AttributeProto::INT);
          proto.set_i(v);
        } else if constexpr (std::is_same_v<V, float>) {
          proto.set_type(onnx::AttributeProto::FLOAT);
          proto.set_f(v);
        } else if constexpr (std::is_same_v<V, std::string>) {
          proto.set_type(onnx::AttributeProto::STRING);
          proto.set_s(v);
        } else if constexpr (std::is_same_v<V, std::vector<int64_t>>) {
          proto.set_type(onnx::AttributeProto::INTS);
          proto.mutable_ints()->Add(v.begin(), v.end());
        } else if constexpr (std::is_same_v<V, std::vector<float>>) {
          proto.set_type(onnx::AttributeProto::FLOATS);
          proto.mutable_floats()->Add(v.begin(), v.end());
        } else {
          proto.set_type(onnx::AttributeProto::TENSOR);
          fillTensor(*proto.mutable_t(), name, v);
        }
      },
      value);
}

void fillNode(onnx::NodeProto &proto, const Node &node) {
  proto.set_name(node.name);
  proto.set_op_type(node.op_type);
  for (const std::string &input : node.inputs)
    proto.add_input(input);
  for (const std::string &output : node.outputs)
    proto.add_output(output);
  for (const auto &[name, value] : node.attributes)
    fillAttribute(*proto.add_attribute(), name, value);
}

void fillValueInfo(onnx::ValueInfoProto &proto, const Graph &graph, const std::string &name,
                   const std::string &path) {
  auto info = graph.values.find(name);
  if (info == graph.values.end())
    throw Error(path + ": cannot export value '" + name + "': its shape is unknown");
  proto.set_name(name);
  onnx::TypeProto_Tensor *type = proto.mutable_type()->mutable_tensor_type();
  type->set_elem_type(elemType(info->second.dtype));
  for (int64_t d : info->second.shape)
    type->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::ModelProto toModelProto(const Graph &graph, const std::string &path,
                              const std::map<std::string, std::string> &metadata) {
  onnx::ModelProto model;
  model.set_ir_version(kIrVersion);
  model.set_producer_name("nasc");
  onnx::OperatorSetIdProto *opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(kOpset);
  for (const auto &[key, value] : metadata) {
    onnx::StringStringEntryProto *entry = model.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  }
  onnx::GraphProto *proto = model.mutable_graph();
  proto->set_name(graph.name.empty() ? "nasc" : graph.name);
  for (const Node &node : graph.nodes)
    fillNode(*proto->add_node(), node);
  for (const auto &[name, tensor] : graph.initializers)
    fillTensor(*proto->add_initializer(), name, tensor);
  for (const std::string &input : graph.inputs)
    fillValueInfo(*proto->add_input(), graph, input, path);
  for (const std::string &output : graph.outputs)
    fillValueInfo(*proto->add_output(), graph, output, path);
  return model;
}

} // namespace

void exportOnnx(const Graph &graph, const std::string &path,
                const std::map<std::string, std::string> &metadata) {
  const onnx::ModelProto model = toModelProto(graph, path, metadata);
  std::ofstream out(path, std::ios::binary);
  if (!out || !model.SerializeToOstream(&out))
    throw Error(path + ": cannot write the ONNX model");
}

} // namespace nasc::ir
