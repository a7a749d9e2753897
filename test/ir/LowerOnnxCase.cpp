#include "LowerOnnxCase.h"

#include "ir/import/ModelLoader.h"
#include "ir/import/OnnxImporter.h"
#include "ir/import/OnnxTensor.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace nasc::lowertest {

namespace {

ir::Attribute attributeOf(const onnx::AttributeProto &a) {
  switch (a.type()) {
  case onnx::AttributeProto::INT:
    return a.i();
  case onnx::AttributeProto::FLOAT:
    return a.f();
  case onnx::AttributeProto::STRING:
    return a.s();
  case onnx::AttributeProto::INTS:
    return std::vector<int64_t>(a.ints().begin(), a.ints().end());
  case onnx::AttributeProto::FLOATS:
    return std::vector<float>(a.floats().begin(), a.floats().end());
  default:
    throw std::runtime_error("unsupported attribute kind in test model: " + a.name());
  }
}

ir::ValueInfo valueInfoOf(const onnx::ValueInfoProto &v) {
  ir::ValueInfo info;
  info.dtype = v.type().tensor_type().elem_type() == onnx::TensorProto::INT64 ? ir::DType::Int64
                                                                              : ir::DType::Float32;
  for (const auto &d : v.type().tensor_type().shape().dim())
    info.shape.push_back(d.dim_value());
  return info;
}

ir::Node nodeOf(const onnx::NodeProto &n) {
  ir::Node node;
  node.name = n.name().empty() ? n.op_type() + "_node" : n.name();
  node.op_type = n.op_type();
  node.inputs.assign(n.input().begin(), n.input().end());
  node.outputs.assign(n.output().begin(), n.output().end());
  for (const auto &a : n.attribute())
    node.attributes[a.name()] = attributeOf(a);
  return node;
}

std::string caseDir(const std::string &suite, const std::string &name) {
  return "/usr/share/libonnx-testdata/data/" + suite + "/" + name;
}

std::vector<ir::Tensor> readTensors(const std::string &dir, const std::string &prefix,
                                    size_t count) {
  std::vector<ir::Tensor> tensors;
  for (size_t k = 0; k < count; ++k)
    tensors.push_back(ir::readTensorProto(dir + "/" + prefix + std::to_string(k) + ".pb"));
  return tensors;
}

} // namespace

OnnxCase readOnnxCase(const std::string &suite, const std::string &name,
                      const std::vector<size_t> &constantInputs) {
  std::string dir = caseDir(suite, name);
  std::ifstream in(dir + "/model.onnx", std::ios::binary);
  onnx::ModelProto model;
  if (!in || !model.ParseFromIstream(&in))
    throw std::runtime_error("cannot read " + dir + "/model.onnx");
  const onnx::GraphProto &g = model.graph();
  OnnxCase c;
  c.graph.name = name;
  c.graph.source = dir + "/model.onnx";
  for (const auto &t : g.initializer())
    c.graph.initializers[t.name()] = ir::tensorFromProto(t, t.name());
  for (const auto &v : g.value_info())
    c.graph.values[v.name()] = valueInfoOf(v);
  std::vector<std::string> fed;
  for (const auto &v : g.input()) {
    c.graph.values[v.name()] = valueInfoOf(v);
    if (!c.graph.isInitializer(v.name()))
      fed.push_back(v.name());
  }
  for (const auto &v : g.output()) {
    c.graph.values[v.name()] = valueInfoOf(v);
    c.graph.outputs.push_back(v.name());
  }
  for (const auto &n : g.node())
    c.graph.nodes.push_back(nodeOf(n));
  std::vector<ir::Tensor> data = readTensors(dir + "/test_data_set_0", "input_", fed.size());
  for (size_t k = 0; k < fed.size(); ++k) {
    if (std::count(constantInputs.begin(), constantInputs.end(), k))
      c.graph.initializers[fed[k]] = data[k];
    else
      c.graph.inputs.push_back(fed[k]), c.inputs.push_back(data[k]);
  }
  c.outputs = readTensors(dir + "/test_data_set_0", "output_", c.graph.outputs.size());
  for (size_t k = 0; k < c.outputs.size(); ++k)
    c.graph.values[c.graph.outputs[k]].shape = c.outputs[k].shape;
  return c;
}

OnnxCase loadOnnxCase(const std::string &suite, const std::string &name) {
  std::string dir = caseDir(suite, name);
  OnnxCase c;
  c.graph = ir::loadModel(dir + "/model.onnx");
  c.inputs = readTensors(dir + "/test_data_set_0", "input_", c.graph.inputs.size());
  c.outputs = readTensors(dir + "/test_data_set_0", "output_", c.graph.outputs.size());
  return c;
}

} // namespace nasc::lowertest
