// ONNX import of small models built here with the protobuf API: initializer encodings,
// symbolic dims with and without overrides, and the errors for unsupported content.
#include "ir/Error.h"
#include "ir/import/ModelLoader.h"
#include "ir/import/OnnxImporter.h"

#include <catch2/catch.hpp>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace {

/// A one-node model: input "x" of `dims` (a string entry becomes a dim_param), Relu -> "y".
onnx::ModelProto reluModel(const std::vector<std::string> &dims) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto *graph = model.mutable_graph();
  graph->set_name("relu");
  onnx::ValueInfoProto *x = graph->add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  for (const std::string &d : dims) {
    auto *dim = x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim();
    if (std::isdigit(static_cast<unsigned char>(d[0])))
      dim->set_dim_value(std::stoll(d));
    else
      dim->set_dim_param(d);
  }
  onnx::NodeProto *node = graph->add_node();
  node->set_name("relu1");
  node->set_op_type("Relu");
  node->add_input("x");
  node->add_output("y");
  graph->add_output()->set_name("y");
  graph->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::FLOAT);
  return model;
}

std::string save(const onnx::ModelProto &model, const std::string &name) {
  std::string path = (std::filesystem::temp_directory_path() / ("nasc_import_" + name)).string();
  std::ofstream out(path, std::ios::binary);
  model.SerializeToOstream(&out);
  return path;
}

} // namespace

TEST_CASE("a symbolic input dim is an error naming the input unless overridden") {
  std::string path = save(reluModel({"batch", "3", "8", "8"}), "dim_param.onnx");
  REQUIRE_THROWS_WITH(nasc::ir::importOnnx(path),
                      Catch::Contains("'x'") && Catch::Contains("batch"));
  nasc::ir::Graph graph = nasc::ir::importOnnx(path, {{"x", {2, 3, 8, 8}}});
  CHECK(graph.shapeOf("x") == nasc::ir::Shape{2, 3, 8, 8});
  REQUIRE_THROWS_WITH(nasc::ir::importOnnx(path, {{"nope", {1}}}), Catch::Contains("'nope'"));
}

TEST_CASE("a negative input dim is an error naming the file and the input") {
  onnx::ModelProto model = reluModel({"1", "3", "8", "8"});
  model.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(2)
      ->set_dim_value(-8);
  std::string path = save(model, "negative_dim.onnx");
  REQUIRE_THROWS_WITH(nasc::ir::importOnnx(path),
                      path + ": value 'x' has a negative dimension (-8)");
}

TEST_CASE("initializers are read from raw_data and from typed fields") {
  onnx::ModelProto model = reluModel({"1", "2"});
  onnx::TensorProto *typed = model.mutable_graph()->add_initializer();
  typed->set_name("typed");
  typed->set_data_type(onnx::TensorProto::FLOAT);
  typed->add_dims(3);
  for (float v : {1.5f, -2.0f, 4.25f})
    typed->add_float_data(v);
  onnx::TensorProto *raw = model.mutable_graph()->add_initializer();
  raw->set_name("raw");
  raw->set_data_type(onnx::TensorProto::INT64);
  raw->add_dims(2);
  const int64_t values[2] = {7, -9};
  raw->set_raw_data(std::string(reinterpret_cast<const char *>(values), sizeof(values)));
  nasc::ir::Graph graph = nasc::ir::importOnnx(save(model, "inits.onnx"));
  CHECK(graph.initializers.at("typed").f == std::vector<float>{1.5f, -2.0f, 4.25f});
  CHECK(graph.initializers.at("raw").i == std::vector<int64_t>{7, -9});
  CHECK(graph.inputs == std::vector<std::string>{"x"});
}

TEST_CASE("external data is rejected with a clear error") {
  onnx::ModelProto model = reluModel({"1", "2"});
  onnx::TensorProto *w = model.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(2);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  REQUIRE_THROWS_WITH(nasc::ir::importOnnx(save(model, "external.onnx")),
                      Catch::Contains("'w'") && Catch::Contains("external data not supported"));
}

TEST_CASE("an attribute of an unsupported kind is an error naming node and attribute") {
  onnx::ModelProto model = reluModel({"1", "2"});
  onnx::AttributeProto *attr = model.mutable_graph()->mutable_node(0)->add_attribute();
  attr->set_name("body");
  attr->set_type(onnx::AttributeProto::GRAPH);
  attr->mutable_g()->set_name("sub");
  REQUIRE_THROWS_WITH(nasc::ir::importOnnx(save(model, "graph_attr.onnx")),
                      Catch::Contains("'relu1'") && Catch::Contains("'body'") &&
                          Catch::Contains("GRAPH"));
}

TEST_CASE("an opset outside what nasc reads is rejected") {
  onnx::ModelProto model = reluModel({"1", "2"});
  model.mutable_opset_import(0)->set_version(21);
  REQUIRE_THROWS_WITH(nasc::ir::importOnnx(save(model, "opset21.onnx")),
                      Catch::Contains("opset 21"));
}

TEST_CASE("a batch override on an ONNX file with declared output shapes infers the new batch") {
  onnx::ModelProto model = reluModel({"1", "3"});
  auto *dims = model.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type();
  dims->mutable_shape()->add_dim()->set_dim_value(1);
  dims->mutable_shape()->add_dim()->set_dim_value(3);
  std::string path = save(model, "declared.onnx");
  CHECK(nasc::ir::loadModel(path).shapeOf("y") == nasc::ir::Shape{1, 3});
  CHECK(nasc::ir::loadModel(path, {{"x", {5, 3}}}).shapeOf("y") == nasc::ir::Shape{5, 3});
}
