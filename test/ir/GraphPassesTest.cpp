// No-op removal, constant folding and the supported-op check on small hand-built graphs; the
// expected graphs and values are worked out by hand in each test.
#include "ir/Error.h"
#include "ir/passes/Passes.h"

#include <catch2/catch.hpp>

using nasc::ir::DType;
using nasc::ir::Graph;
using nasc::ir::Node;
using nasc::ir::Tensor;

namespace {

Tensor int64Tensor(const std::vector<int64_t> &values) {
  Tensor t;
  t.dtype = DType::Int64;
  t.shape = {static_cast<int64_t>(values.size())};
  t.i = values;
  return t;
}

/// x (1x4x2x2) -> nodes... ; outputs set by the caller.
Graph graphWithInput() {
  Graph g;
  g.source = "test.json";
  g.inputs = {"x"};
  g.values["x"] = {DType::Float32, {1, 4, 2, 2}};
  return g;
}

void addInitializer(Graph &g, const std::string &name, const Tensor &t) {
  g.initializers[name] = t;
  g.values[name] = {t.dtype, t.shape};
}

} // namespace

TEST_CASE("Identity and Dropout are removed and readers read the original value") {
  Graph g = graphWithInput();
  g.outputs = {"y"};
  g.nodes = {Node{"id", "Identity", {"x"}, {"a"}, {}},
             Node{"drop", "Dropout", {"a"}, {"b", ""}, {{"ratio", 0.5f}}},
             Node{"relu", "Relu", {"b"}, {"y"}, {}}};
  nasc::ir::prepareForInference(g);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].inputs == std::vector<std::string>{"x"});
  CHECK(g.shapeOf("y") == nasc::ir::Shape{1, 4, 2, 2});
}

TEST_CASE("a no-op writing a graph output keeps the output name by renaming its producer") {
  Graph g = graphWithInput();
  g.outputs = {"y"};
  g.nodes = {Node{"relu", "Relu", {"x"}, {"r"}, {}}, Node{"id", "Identity", {"r"}, {"y"}, {}}};
  nasc::ir::prepareForInference(g);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].outputs == std::vector<std::string>{"y"});
  CHECK(g.outputs == std::vector<std::string>{"y"});
}

TEST_CASE("a used Dropout mask is an error naming the node") {
  Graph g = graphWithInput();
  g.outputs = {"y", "mask"};
  g.nodes = {Node{"relu", "Relu", {"x"}, {"r"}, {}},
             Node{"drop", "Dropout", {"r"}, {"y", "mask"}, {}}};
  REQUIRE_THROWS_WITH(nasc::ir::prepareForInference(g),
                      Catch::Contains("'drop'") && Catch::Contains("mask"));
}

TEST_CASE("Constant shape feeding Reshape is folded and the Reshape shape inferred") {
  Graph g = graphWithInput();
  g.outputs = {"y"};
  Node shape{"shape", "Constant", {}, {"s"}, {{"value", int64Tensor({1, -1})}}};
  g.nodes = {shape, Node{"reshape", "Reshape", {"x", "s"}, {"y"}, {}}};
  nasc::ir::prepareForInference(g);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.isInitializer("s"));
  CHECK(g.shapeOf("y") == nasc::ir::Shape{1, 16});
}

TEST_CASE("Concat and broadcasting Add of initializers are folded to their values") {
  Graph g = graphWithInput();
  g.outputs = {"y"};
  addInitializer(g, "a", int64Tensor({1, 4}));
  addInitializer(g, "b", int64Tensor({2, 2}));
  Tensor col = Tensor::zeros({2, 1});
  col.f = {1.0f, 10.0f};
  Tensor row = Tensor::zeros({3});
  row.f = {0.5f, 1.5f, 2.5f};
  addInitializer(g, "col", col);
  addInitializer(g, "row", row);
  g.nodes = {Node{"cat", "Concat", {"a", "b"}, {"s"}, {{"axis", int64_t{0}}}},
             Node{"sum", "Add", {"col", "row"}, {"t"}, {}},
             Node{"reshape", "Reshape", {"x", "s"}, {"y"}, {}},
             Node{"keep", "Flatten", {"t"}, {"u"}, {}}};
  g.outputs.push_back("u");
  nasc::ir::foldConstants(g);
  CHECK(g.initializers.at("s").i == std::vector<int64_t>{1, 4, 2, 2});
  CHECK(g.initializers.at("t").shape == nasc::ir::Shape{2, 3});
  CHECK(g.initializers.at("t").f == std::vector<float>{1.5f, 2.5f, 3.5f, 10.5f, 11.5f, 12.5f});
  CHECK_FALSE(g.isInitializer("a"));
  REQUIRE(g.nodes.size() == 2);
}

TEST_CASE("a Constant writing a graph output becomes an initializer output, no node left") {
  Graph g;
  g.source = "test.json";
  g.outputs = {"values"};
  Tensor value = Tensor::zeros({2, 2});
  value.f = {1.0f, -2.0f, 3.0f, -4.0f};
  g.nodes = {Node{"const", "Constant", {}, {"values"}, {{"value", value}}}};
  nasc::ir::prepareForInference(g);
  CHECK(g.nodes.empty());
  REQUIRE(g.isInitializer("values"));
  CHECK(g.initializers.at("values").f == value.f);
  CHECK(g.shapeOf("values") == nasc::ir::Shape{2, 2});
}

TEST_CASE("unsupported attribute values are errors naming node, op and attribute") {
  auto rejected = [](Node node, Graph g) {
    g.outputs = {node.outputs[0]};
    g.nodes = {node};
    nasc::ir::checkSupported(g);
  };
  Graph g = graphWithInput();
  REQUIRE_THROWS_WITH(
      rejected(Node{"mp",
                    "MaxPool",
                    {"x"},
                    {"y"},
                    {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"storage_order", int64_t{1}}}},
               g),
      Catch::Contains("test.json") && Catch::Contains("'mp' (MaxPool)") &&
          Catch::Contains("'storage_order'"));
  REQUIRE_THROWS_WITH(rejected(Node{"bn",
                                    "BatchNormalization",
                                    {"x", "s", "b", "m", "v"},
                                    {"y"},
                                    {{"training_mode", int64_t{1}}}},
                               g),
                      Catch::Contains("'bn' (BatchNormalization)") &&
                          Catch::Contains("'training_mode'"));
  REQUIRE_THROWS_WITH(rejected(Node{"fc", "Gemm", {"x", "x"}, {"y"}, {}}, g),
                      Catch::Contains("'fc' (Gemm)") && Catch::Contains("2-D"));
  REQUIRE_THROWS_WITH(rejected(Node{"conv", "Conv", {"x", "w"}, {"y"}, {{"foo", int64_t{1}}}}, g),
                      Catch::Contains("'conv' (Conv)") && Catch::Contains("'foo'"));
  REQUIRE_THROWS_WITH(rejected(Node{"d", "Dropout", {"x", "r", "t"}, {"y"}, {}}, g),
                      Catch::Contains("'d' (Dropout)") && Catch::Contains("training_mode"));
  Graph ints = graphWithInput();
  ints.values["x"].dtype = DType::Int64;
  REQUIRE_THROWS_WITH(rejected(Node{"conv", "Conv", {"x", "w"}, {"y"}, {}}, ints),
                      Catch::Contains("'conv' (Conv)") && Catch::Contains("float32"));
}

TEST_CASE("shape inference rejects inconsistent shapes naming the node") {
  Graph g = graphWithInput();
  g.outputs = {"y"};
  addInitializer(g, "other", Tensor::zeros({3, 2}));
  g.nodes = {Node{"add", "Add", {"x", "other"}, {"y"}, {}}};
  REQUIRE_THROWS_WITH(nasc::ir::inferShapes(g), Catch::Contains("test.json") &&
                                                    Catch::Contains("'add' (Add)") &&
                                                    Catch::Contains("broadcast"));
  g.nodes = {Node{"relu", "Relu", {"x"}, {"y"}, {}}};
  g.values["y"] = {DType::Float32, {1, 4, 2, 3}};
  REQUIRE_THROWS_WITH(nasc::ir::inferShapes(g),
                      Catch::Contains("'relu' (Relu)") && Catch::Contains("declares 1x4x2x3"));
}

TEST_CASE("Slice shapes: negative indices, clamping and negative steps as the ONNX spec says") {
  // x 1x4x2x2; axes [1, -1]: channels 3, 1 (start -1 -> 3, end -5 -> -1 clamped, step -2);
  // columns start -5 -> -3 clamped to 0, end 100 clamped to 2: both columns.
  Graph g = graphWithInput();
  g.outputs = {"y"};
  addInitializer(g, "starts", int64Tensor({-1, -5}));
  addInitializer(g, "ends", int64Tensor({-5, 100}));
  addInitializer(g, "axes", int64Tensor({1, -1}));
  addInitializer(g, "steps", int64Tensor({-2, 1}));
  g.nodes = {Node{"slice", "Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"}, {}}};
  nasc::ir::prepareForInference(g);
  CHECK(g.shapeOf("y") == nasc::ir::Shape{1, 2, 2, 2});
  const auto axes = nasc::ir::sliceAxes(g, g.nodes[0], {1, 4, 2, 2});
  REQUIRE(axes.size() == 2);
  CHECK((axes[0].axis == 1 && axes[0].start == 3 && axes[0].step == -2 && axes[0].count == 2));
  CHECK((axes[1].axis == 3 && axes[1].start == 0 && axes[1].step == 1 && axes[1].count == 2));
}

TEST_CASE("Slice errors name the file, node and input") {
  auto infer = [](const std::vector<std::string> &inputs, const std::vector<int64_t> &steps) {
    Graph g = graphWithInput();
    g.outputs = {"y"};
    g.inputs.push_back("starts");
    g.values["starts"] = {DType::Int64, {1}};
    addInitializer(g, "ends", int64Tensor({2}));
    addInitializer(g, "s0", int64Tensor({0}));
    addInitializer(g, "steps", int64Tensor(steps));
    g.nodes = {Node{"cut", "Slice", inputs, {"y"}, {}}};
    nasc::ir::prepareForInference(g);
  };
  REQUIRE_THROWS_WITH(infer({"x", "starts", "ends"}, {1}),
                      Catch::Contains("test.json") && Catch::Contains("'cut' (Slice)") &&
                          Catch::Contains("input 'starts'") && Catch::Contains("constant"));
  REQUIRE_THROWS_WITH(infer({"x", "s0", "ends", "", "steps"}, {0}),
                      Catch::Contains("'cut' (Slice)") && Catch::Contains("input 'steps'"));
  REQUIRE_THROWS_WITH(infer({"x", "s0", "ends", "", "steps"}, {1, 1}),
                      Catch::Contains("'cut' (Slice)") && Catch::Contains("input 'steps'") &&
                          Catch::Contains("'starts' has 1"));
}

TEST_CASE("Resize shapes from scales (floor(in * scale)) or sizes; \"\" inputs are omitted") {
  Graph g = graphWithInput();
  g.outputs = {"y"};
  Tensor scales = Tensor::zeros({4}, 1.0f);
  scales.f[2] = 2.0f;
  scales.f[3] = 1.5f;
  addInitializer(g, "scales", scales);
  g.nodes = {Node{"up", "Resize", {"x", "", "scales"}, {"y"}, {{"mode", std::string("nearest")}}}};
  nasc::ir::prepareForInference(g);
  CHECK(g.shapeOf("y") == nasc::ir::Shape{1, 4, 4, 3});
  Graph sized = graphWithInput();
  sized.outputs = {"y"};
  addInitializer(sized, "empty", Tensor::zeros({0}));
  addInitializer(sized, "sizes", int64Tensor({1, 4, 5, 1}));
  sized.nodes = {Node{"up", "Resize", {"x", "empty", "empty", "sizes"}, {"y"}, {}}};
  nasc::ir::prepareForInference(sized);
  CHECK(sized.shapeOf("y") == nasc::ir::Shape{1, 4, 5, 1});
}

TEST_CASE("Resize errors name the file, node and attribute or input") {
  auto infer = [](const std::vector<std::string> &inputs,
                  std::map<std::string, nasc::ir::Attribute> attributes) {
    Graph g = graphWithInput();
    g.outputs = {"y"};
    addInitializer(g, "scales", Tensor::zeros({4}, 2.0f));
    addInitializer(g, "sizes", int64Tensor({1, 4, 4, 4}));
    g.nodes = {Node{"up", "Resize", inputs, {"y"}, std::move(attributes)}};
    nasc::ir::prepareForInference(g);
  };
  REQUIRE_THROWS_WITH(infer({"x", "", "scales"}, {{"mode", std::string("cubic")}}),
                      Catch::Contains("test.json") && Catch::Contains("'up' (Resize)") &&
                          Catch::Contains("attribute 'mode'") && Catch::Contains("not supported"));
  REQUIRE_THROWS_WITH(infer({"x", "", "scales"}, {{"nearest_mode", std::string("odd")}}),
                      Catch::Contains("attribute 'nearest_mode'"));
  REQUIRE_THROWS_WITH(infer({"x", "", "scales", "sizes"}, {}),
                      Catch::Contains("'up' (Resize)") && Catch::Contains("exactly one"));
  REQUIRE_THROWS_WITH(infer({"x", "", "x"}, {}), Catch::Contains("'up' (Resize)") &&
                                                     Catch::Contains("input 'scales'") &&
                                                     Catch::Contains("constant"));
}
