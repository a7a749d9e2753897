// JSON model spec import (docs/model-spec.md): the three weight kinds, attribute typing, and the
// errors for malformed specs. Expected values are written by the test itself or follow from
// the He-normal definition (mean 0, standard deviation sqrt(2 / fan_in)).
#include "ir/Error.h"
#include "ir/import/JsonImporter.h"
#include "ir/import/ModelLoader.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace {

std::filesystem::path tempDir() {
  auto dir = std::filesystem::temp_directory_path() / "nasc_json_import_test";
  std::filesystem::create_directories(dir);
  return dir;
}

std::string writeFile(const std::string &name, const std::string &text) {
  std::filesystem::path path = tempDir() / name;
  std::ofstream(path) << text;
  return path.string();
}

/// A conv model: x 1x2x5x5, W 4x2x3x3 (given by `weight`), B inline, SAME_UPPER stride 2.
std::string convSpec(const std::string &weight, const std::string &extraAttribute = "") {
  return R"({"name": "tiny", "opset": 13,
  "inputs": [{"name": "x", "shape": [1, 2, 5, 5]}],
  "outputs": ["y"],
  "nodes": [{"name": "conv", "op_type": "Conv", "inputs": ["x", "W", "B"], "outputs": ["c"],
             "attributes": {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_UPPER")" +
         extraAttribute + R"(}},
            {"name": "relu", "op_type": "Relu", "inputs": ["c"], "outputs": ["y"]}],
  "initializers": [)" +
         weight + R"(, {"name": "B", "shape": [4], "data": [0.5, -1, 2, 3.25]}]})";
}

const std::string kHeWeight =
    R"({"name": "W", "shape": [4, 2, 3, 3], "init": "he_normal", "seed": 7})";

} // namespace

TEST_CASE("inline weights keep their values and attributes their ONNX kinds") {
  nasc::ir::Graph graph = nasc::ir::importJson(writeFile("inline.json", convSpec(kHeWeight)));
  CHECK(graph.initializers.at("B").f == std::vector<float>{0.5f, -1.0f, 2.0f, 3.25f});
  const nasc::ir::Node &conv = graph.nodes.at(0);
  CHECK(conv.getInts("kernel_shape", {}) == std::vector<int64_t>{3, 3});
  CHECK(conv.getString("auto_pad", "") == "SAME_UPPER");
  CHECK(graph.inputs == std::vector<std::string>{"x"});
  CHECK(graph.outputs == std::vector<std::string>{"y"});
}

TEST_CASE("an integer given for an ONNX FLOAT attribute is read as a float") {
  // Clip-6's min and max are FLOAT attributes (ONNX operator spec); group is an INT.
  const std::string spec = R"({"name": "clip", "opset": 6,
  "inputs": [{"name": "x", "shape": [1, 2, 5, 5]}], "outputs": ["y"],
  "nodes": [{"name": "clip", "op_type": "Clip", "inputs": ["x"], "outputs": ["y"],
             "attributes": {"min": 0, "max": 6}}]})";
  const nasc::ir::Graph graph = nasc::ir::importJson(writeFile("clip.json", spec));
  const nasc::ir::Node &clip = graph.nodes.at(0);
  CHECK(std::get<float>(clip.attributes.at("min")) == 0.0F);
  CHECK(std::get<float>(clip.attributes.at("max")) == 6.0F);
  const nasc::ir::Graph conv =
      nasc::ir::importJson(writeFile("group.json", convSpec(kHeWeight, R"(, "group": 1)")));
  CHECK(std::holds_alternative<int64_t>(conv.nodes.at(0).attributes.at("group")));
}

TEST_CASE("side-file weights are read as little-endian float32 from the given offset") {
  std::vector<float> written(4 * 2 * 3 * 3 + 3);
  for (size_t k = 0; k < written.size(); ++k)
    written[k] = 0.25f * static_cast<float>(k) - 3.0f;
  std::ofstream(tempDir() / "w.bin", std::ios::binary)
      .write(reinterpret_cast<const char *>(written.data()),
             static_cast<std::streamsize>(written.size() * sizeof(float)));
  std::string weight = R"({"name": "W", "shape": [4, 2, 3, 3], "file": "w.bin", "offset": 12})";
  nasc::ir::Graph graph = nasc::ir::importJson(writeFile("file.json", convSpec(weight)));
  const std::vector<float> &w = graph.initializers.at("W").f;
  REQUIRE(w.size() == 72);
  for (size_t k = 0; k < w.size(); ++k)
    CHECK(w[k] == written[k + 3]);
}

TEST_CASE("he_normal weights are deterministic with mean 0 and std sqrt(2/fan_in)") {
  std::string spec = R"({"inputs": [], "outputs": [], "nodes": [], "initializers": [
    {"name": "a", "shape": [64, 16, 3, 3], "init": "he_normal", "seed": 1},
    {"name": "b", "shape": [64, 16, 3, 3], "init": "he_normal", "seed": 1},
    {"name": "c", "shape": [64, 16, 3, 3], "init": "he_normal", "seed": 2},
    {"name": "z", "shape": [3], "init": "zeros"}, {"name": "o", "shape": [2, 2], "init": "ones"}]})";
  nasc::ir::Graph graph = nasc::ir::importJson(writeFile("he.json", spec));
  const std::vector<float> &a = graph.initializers.at("a").f;
  CHECK(a == graph.initializers.at("b").f);
  CHECK(a != graph.initializers.at("c").f);
  double sum = 0, sumSquares = 0;
  for (float v : a) {
    sum += v;
    sumSquares += static_cast<double>(v) * v;
  }
  const double n = static_cast<double>(a.size());
  const double expectedStd = std::sqrt(2.0 / (16 * 3 * 3));
  CHECK(std::abs(sum / n) < 4 * expectedStd / std::sqrt(n));
  CHECK(std::sqrt(sumSquares / n) == Approx(expectedStd).epsilon(0.03));
  CHECK(graph.initializers.at("z").f == std::vector<float>{0, 0, 0});
  CHECK(graph.initializers.at("o").f == std::vector<float>{1, 1, 1, 1});
}

TEST_CASE("loadModel on a JSON spec infers SAME_UPPER stride-2 conv shape ceil(5/2)=3") {
  nasc::ir::Graph graph = nasc::ir::loadModel(writeFile("load.json", convSpec(kHeWeight)));
  CHECK(graph.shapeOf("y") == nasc::ir::Shape{1, 4, 3, 3});
}

TEST_CASE("malformed JSON specs are errors naming file, node or initializer, and field") {
  auto load = [](const std::string &name, const std::string &text) {
    return nasc::ir::loadModel(writeFile(name, text));
  };
  std::string unknownOp = convSpec(kHeWeight);
  unknownOp.replace(unknownOp.find("\"Relu\""), 6, "\"Swish\"");
  REQUIRE_THROWS_WITH(load("unknown_op.json", unknownOp), Catch::Contains("unknown_op.json") &&
                                                              Catch::Contains("'relu'") &&
                                                              Catch::Contains("Swish"));
  std::string badPad = convSpec(kHeWeight);
  badPad.replace(badPad.find("SAME_UPPER"), 10, "FOO");
  REQUIRE_THROWS_WITH(load("bad_auto_pad.json", badPad), Catch::Contains("'conv'") &&
                                                             Catch::Contains("'auto_pad'") &&
                                                             Catch::Contains("FOO"));
  REQUIRE_THROWS_WITH(load("bool_attr.json", convSpec(kHeWeight, R"(, "group": true)")),
                      Catch::Contains("'conv'") && Catch::Contains("attributes.group"));
  std::string noOpType = convSpec(kHeWeight);
  noOpType.replace(noOpType.find("\"op_type\": \"Relu\","), 18, "");
  REQUIRE_THROWS_WITH(load("no_op_type.json", noOpType),
                      Catch::Contains("node #1") && Catch::Contains("'op_type': missing"));
  REQUIRE_THROWS_WITH(
      load("short_data.json", convSpec(R"({"name": "W", "shape": [4, 2, 3, 3], "data": [1, 2]})")),
      Catch::Contains("initializer 'W'") && Catch::Contains("'data'"));
  REQUIRE_THROWS_WITH(
      load("no_seed.json",
           convSpec(R"({"name": "W", "shape": [4, 2, 3, 3], "init": "he_normal"})")),
      Catch::Contains("initializer 'W'") && Catch::Contains("'seed': missing"));
  REQUIRE_THROWS_WITH(
      load("bad_init.json", convSpec(R"({"name": "W", "shape": [4, 2, 3, 3], "init": "xavier"})")),
      Catch::Contains("'init'") && Catch::Contains("xavier"));
  REQUIRE_THROWS_WITH(
      load("no_file.json", convSpec(R"({"name": "W", "shape": [4, 2, 3, 3], "file": "nope.bin"})")),
      Catch::Contains("initializer 'W'") && Catch::Contains("nope.bin"));
  REQUIRE_THROWS_WITH(
      load("neg_shape.json", convSpec(R"({"name": "W", "shape": [4, -2, 3, 3], "init": "ones"})")),
      Catch::Contains("initializer 'W'") && Catch::Contains("'shape'"));
  std::string typo = convSpec(kHeWeight);
  typo.replace(typo.find("\"attributes\""), 12, "\"atributes\"");
  REQUIRE_THROWS_WITH(load("typo.json", typo), Catch::Contains("'atributes': unknown field"));
  REQUIRE_THROWS_WITH(load("not_json.json", "{\"inputs\": ["), Catch::Contains("not valid JSON"));
  REQUIRE_THROWS_WITH(nasc::ir::loadModel(writeFile("model.txt", "{}")),
                      Catch::Contains("unknown model format"));
}

TEST_CASE("inconsistent shapes in a JSON spec are errors naming the node") {
  std::string wrongChannels =
      convSpec(R"({"name": "W", "shape": [4, 3, 3, 3], "init": "he_normal", "seed": 1})");
  REQUIRE_THROWS_WITH(nasc::ir::loadModel(writeFile("channels.json", wrongChannels)),
                      Catch::Contains("'conv'") && Catch::Contains("group"));
}

TEST_CASE("the example in docs/model-spec.md loads with the shapes the document states") {
  std::ifstream doc(std::string(NASC_SOURCE_DIR) + "/docs/model-spec.md");
  std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  const size_t begin = text.find("```json\n{\n  \"name\": \"tiny-cnn\"");
  REQUIRE(begin != std::string::npos);
  const size_t start = begin + 8;
  const std::string example = text.substr(start, text.find("```", start) - start);
  std::vector<float> conv2(16 * 4 * 3 * 3, 0.01f);
  std::ofstream(tempDir() / "tiny-cnn.bin", std::ios::binary)
      .write(reinterpret_cast<const char *>(conv2.data()),
             static_cast<std::streamsize>(conv2.size() * sizeof(float)));
  nasc::ir::Graph graph = nasc::ir::loadModel(writeFile("tiny-cnn.json", example));
  CHECK(graph.shapeOf("p1") == nasc::ir::Shape{1, 8, 14, 14});
  CHECK(graph.shapeOf("c2") == nasc::ir::Shape{1, 16, 7, 7});
  CHECK(graph.shapeOf("logits") == nasc::ir::Shape{1, 10});
  CHECK(std::none_of(graph.nodes.begin(), graph.nodes.end(),
                     [](const auto &n) { return n.op_type == "BatchNormalization"; }));
}
