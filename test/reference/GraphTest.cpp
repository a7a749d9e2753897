// Whole-graph behaviour of runReference: chaining nodes, initializers, intermediates, and the
// errors promised for bad inputs and unsupported ops.
#include "TestSupport.h"
#include "ir/Error.h"
#include "runtime/reference/Reference.h"

#include <catch2/catch.hpp>

namespace {

using nasc::ir::Tensor;
using Ints = std::vector<int64_t>;

/// x (1,2,2,2) -> Relu -> Add(bias initializer (2,1,1)) -> Flatten -> "y" (1, 8).
nasc::ir::Graph reluAddFlatten() {
  nasc::ir::Graph g;
  g.source = "graph.onnx";
  g.inputs = {"x"};
  g.outputs = {"y"};
  g.values["x"] = {nasc::ir::DType::Float32, {1, 2, 2, 2}};
  g.initializers["bias"] = Tensor::zeros({2, 1, 1});
  g.initializers["bias"].f = {10.0f, 20.0f};
  g.nodes.push_back({"relu", "Relu", {"x"}, {"r"}, {}});
  g.nodes.push_back({"add", "Add", {"r", "bias"}, {"a"}, {}});
  g.nodes.push_back({"flat", "Flatten", {"a"}, {"y"}, {}});
  return g;
}

Tensor graphInput() {
  Tensor x = Tensor::zeros({1, 2, 2, 2});
  x.f = {-1, 2, -3, 4, 5, -6, 7, -8};
  return x;
}

} // namespace

TEST_CASE("runReference chains nodes and reads initializers") {
  const auto outputs = nasc::runtime::runReference(reluAddFlatten(), {{"x", graphInput()}});
  REQUIRE(outputs.size() == 1);
  const Tensor &y = outputs.at("y");
  CHECK(y.shape == nasc::ir::Shape{1, 8});
  CHECK(y.f == std::vector<float>{10, 12, 10, 14, 25, 20, 27, 20});
}

TEST_CASE("runReference with keepIntermediates returns inputs and every node output") {
  const auto values = nasc::runtime::runReference(reluAddFlatten(), {{"x", graphInput()}}, true);
  for (const char *name : {"x", "r", "a", "y"})
    CHECK(values.count(name) == 1);
  CHECK(values.count("bias") == 0);
  CHECK(values.at("r").f == std::vector<float>{0, 2, 0, 4, 5, 0, 7, 0});
}

TEST_CASE("runReference rejects a missing input, naming it") {
  REQUIRE_THROWS_WITH(nasc::runtime::runReference(reluAddFlatten(), {}),
                      Catch::Contains("input 'x'") && Catch::Contains("missing"));
}

TEST_CASE("runReference rejects a wrong-shaped input, naming it and both shapes") {
  REQUIRE_THROWS_WITH(
      nasc::runtime::runReference(reluAddFlatten(), {{"x", Tensor::zeros({1, 2, 2, 3})}}),
      Catch::Contains("input 'x'") && Catch::Contains("1x2x2x3") && Catch::Contains("1x2x2x2"));
}

TEST_CASE("runReference rejects an unsupported op, naming the node and op") {
  nasc::ir::Graph g = reluAddFlatten();
  g.nodes[0].op_type = "Sigmoid";
  REQUIRE_THROWS_WITH(nasc::runtime::runReference(g, {{"x", graphInput()}}),
                      Catch::Contains("node 'relu'") && Catch::Contains("Sigmoid"));
}

TEST_CASE("runReference rejects an unknown auto_pad value, naming node and attribute") {
  const Tensor x = Tensor::zeros({1, 1, 4, 4}), w = Tensor::zeros({1, 1, 3, 3});
  const auto g = nasc::test::singleNodeGraph("Conv", {{"auto_pad", std::string("SAME")}}, {x, w});
  REQUIRE_THROWS_WITH(nasc::runtime::runReference(g, {{"in0", x}, {"in1", w}}),
                      Catch::Contains("Conv") && Catch::Contains("auto_pad") &&
                          Catch::Contains("SAME"));
}

TEST_CASE("runReference rejects Conv weights whose channels do not fit the group") {
  const Tensor x = Tensor::zeros({1, 4, 4, 4}), w = Tensor::zeros({4, 3, 3, 3});
  const auto g = nasc::test::singleNodeGraph("Conv", {{"group", int64_t{2}}}, {x, w});
  REQUIRE_THROWS_WITH(nasc::runtime::runReference(g, {{"in0", x}, {"in1", w}}),
                      Catch::Contains("group"));
}

TEST_CASE("runReference rejects MaxPool's Indices output instead of leaving it empty") {
  const Tensor x = Tensor::zeros({1, 1, 4, 4});
  auto g = nasc::test::singleNodeGraph("MaxPool", {{"kernel_shape", Ints{2, 2}}}, {x});
  g.nodes[0].outputs.push_back("indices");
  REQUIRE_THROWS_WITH(nasc::runtime::runReference(g, {{"in0", x}}),
                      Catch::Contains("MaxPool") && Catch::Contains("indices"));
}

TEST_CASE("Reshape reads its shape from a Constant node's int64 output") {
  nasc::ir::Graph g;
  g.source = "reshape.onnx";
  g.inputs = {"x"};
  g.outputs = {"y"};
  Tensor shape;
  shape.dtype = nasc::ir::DType::Int64;
  shape.shape = {2};
  shape.i = {-1, 2};
  g.nodes.push_back({"shape", "Constant", {}, {"s"}, {{"value", shape}}});
  g.nodes.push_back({"reshape", "Reshape", {"x", "s"}, {"y"}, {}});
  const auto outputs = nasc::runtime::runReference(g, {{"x", graphInput()}});
  CHECK(outputs.at("y").shape == nasc::ir::Shape{4, 2});
  CHECK(outputs.at("y").f == graphInput().f);
}

TEST_CASE("Dropout in inference is the identity and Concat joins channels") {
  nasc::ir::Graph g;
  g.source = "concat.onnx";
  g.inputs = {"x"};
  g.outputs = {"y"};
  g.nodes.push_back({"drop", "Dropout", {"x"}, {"d"}, {}});
  g.nodes.push_back({"cat", "Concat", {"x", "d"}, {"y"}, {{"axis", int64_t{1}}}});
  const Tensor x = graphInput();
  const Tensor y = nasc::runtime::runReference(g, {{"x", x}}).at("y");
  CHECK(y.shape == nasc::ir::Shape{1, 4, 2, 2});
  std::vector<float> expected = x.f;
  expected.insert(expected.end(), x.f.begin(), x.f.end());
  CHECK(y.f == expected);
}
