// Program-level properties of lowerGraph: buffer kinds, fusion decisions and placement, copies of
// unproduced outputs, unique C-identifier names, and errors naming the node and attribute.
// Fused results are compared with a direct convolution loop written here.
#include "LowerGraphs.h"
#include "LowerInterpreter.h"
#include "ir/Error.h"
#include "ir/lower/Lower.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace {

using nasc::ir::BufferKind;
using nasc::ir::Graph;
using nasc::ir::Program;
using nasc::ir::Shape;
using nasc::lowertest::addInitializer;
using nasc::lowertest::addNode;
using nasc::lowertest::addValue;
using nasc::lowertest::oneNodeGraph;
using Ints = std::vector<int64_t>;

/// Direct 3x3 convolution with pads 1, stride 1, no bias: x C×H×W (N = 1), w K×C×3×3.
std::vector<float> directConv3x3(const std::vector<float> &x, const std::vector<float> &w, int C,
                                 int H, int W, int K) {
  std::vector<float> y(static_cast<size_t>(K * H * W), 0.0f);
  for (int k = 0; k < K; ++k)
    for (int h = 0; h < H; ++h)
      for (int ww = 0; ww < W; ++ww)
        for (int c = 0; c < C; ++c)
          for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) {
              int ih = h + r - 1, iw = ww + s - 1;
              if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                y[static_cast<size_t>((k * H + h) * W + ww)] +=
                    x[static_cast<size_t>((c * H + ih) * W + iw)] *
                    w[static_cast<size_t>(((k * C + c) * 3 + r) * 3 + s)];
            }
  return y;
}

std::vector<float> ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t k = 0; k < n; ++k)
    v[k] = std::sin(static_cast<float>(k) * 0.37f);
  return v;
}

bool isIdentifier(const std::string &s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), [](char ch) {
           return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
         });
}

/// x → conv "a" (3x3, pad 1) → relu → conv "b" → Add(b, x) → relu → y; channels 2, 4x4.
Graph residualBlock() {
  Graph g;
  g.source = "<test>";
  g.inputs = {"x"};
  g.outputs = {"y"};
  for (const char *v : {"x", "a", "ar", "b", "s", "y"})
    addValue(g, v, {1, 2, 4, 4});
  addInitializer(g, "wa", {2, 2, 3, 3}, 1);
  addInitializer(g, "wb", {2, 2, 3, 3}, 2);
  addInitializer(g, "unused", {7});
  Ints pads{1, 1, 1, 1};
  addNode(g, "conv_a", "Conv", {"x", "wa"}, {"a"}, {{"pads", pads}});
  addNode(g, "relu_a", "Relu", {"a"}, {"ar"});
  addNode(g, "conv_b", "Conv", {"ar", "wb"}, {"b"}, {{"pads", pads}});
  addNode(g, "add", "Add", {"b", "x"}, {"s"});
  addNode(g, "relu_b", "Relu", {"s"}, {"y"});
  return g;
}

std::vector<float> residualBlockReference(const Graph &g, const std::vector<float> &x) {
  auto relu = [](std::vector<float> v) {
    for (float &e : v)
      e = std::max(e, 0.0f);
    return v;
  };
  std::vector<float> a = relu(directConv3x3(x, g.initializers.at("wa").f, 2, 4, 4, 2));
  std::vector<float> b = directConv3x3(a, g.initializers.at("wb").f, 2, 4, 4, 2);
  for (size_t k = 0; k < b.size(); ++k)
    b[k] += x[k];
  return relu(b);
}

} // namespace

TEST_CASE("buffers: inputs, outputs, used initializers as constants, the rest temporaries") {
  Graph g = residualBlock();
  Program p = nasc::ir::lowerGraph(g);
  std::map<std::string, BufferKind> kinds;
  for (const auto &b : p.buffers)
    kinds[b.name] = b.kind;
  CHECK(kinds == std::map<std::string, BufferKind>{{"x", BufferKind::Input},
                                                   {"y", BufferKind::Output},
                                                   {"wa", BufferKind::Constant},
                                                   {"wb", BufferKind::Constant},
                                                   {"ar", BufferKind::Temp}});
  REQUIRE(p.inputs.size() == 1);
  CHECK(p.buffers[static_cast<size_t>(p.inputs[0])].name == "x");
  REQUIRE(p.outputs.size() == 1);
  CHECK(p.buffers[static_cast<size_t>(p.outputs[0])].name == "y");
  for (const auto &b : p.buffers)
    if (b.kind == BufferKind::Constant)
      CHECK(b.data.f == g.initializers.at(b.name).f);
}

TEST_CASE("a residual block lowers to two fused kernels that compute the direct result") {
  Graph g = residualBlock();
  Program p = nasc::ir::lowerGraph(g);
  REQUIRE(p.calls.size() == 2);
  CHECK(p.calls[0].nodes == std::vector<std::string>{"conv_a", "relu_a"});
  CHECK(p.calls[1].nodes == std::vector<std::string>{"conv_b", "add", "relu_b"});
  std::vector<float> x = ramp(32);
  auto out = nasc::lowertest::runProgram(p, {x});
  std::vector<float> expected = residualBlockReference(g, x);
  REQUIRE(out.at(0).size() == expected.size());
  for (size_t k = 0; k < expected.size(); ++k)
    CHECK(out[0][k] == Approx(expected[k]).margin(1e-5));
}

TEST_CASE("a residual computed after the conv in node order delays the fused kernel") {
  // conv_b's Add reads "d", produced by a node placed after conv_b (as in torchvision's
  // ResNet exports, where the downsample branch follows the main branch).
  Graph g;
  g.source = "<test>";
  g.inputs = {"x"};
  g.outputs = {"y"};
  for (const char *v : {"x", "b", "d", "s", "y"})
    addValue(g, v, {1, 2, 4, 4});
  addInitializer(g, "wb", {2, 2, 3, 3}, 2);
  addNode(g, "conv_b", "Conv", {"x", "wb"}, {"b"}, {{"pads", Ints{1, 1, 1, 1}}});
  addNode(g, "down", "Relu", {"x"}, {"d"});
  addNode(g, "add", "Add", {"d", "b"}, {"s"});
  addNode(g, "relu", "Relu", {"s"}, {"y"});
  Program p = nasc::ir::lowerGraph(g);
  REQUIRE(p.calls.size() == 2);
  CHECK(p.calls[0].nodes == std::vector<std::string>{"down"});
  CHECK(p.calls[1].nodes == std::vector<std::string>{"conv_b", "add", "relu"});
  std::vector<float> x = ramp(32);
  auto out = nasc::lowertest::runProgram(p, {x});
  std::vector<float> expected = directConv3x3(x, g.initializers.at("wb").f, 2, 4, 4, 2);
  for (size_t k = 0; k < expected.size(); ++k)
    CHECK(out.at(0)[k] == Approx(std::max(expected[k] + std::max(x[k], 0.0f), 0.0f)).margin(1e-5));
}

TEST_CASE("no fusion through a value with two consumers or a graph output") {
  Graph g;
  g.source = "<test>";
  g.inputs = {"x"};
  g.outputs = {"y", "c"};
  for (const char *v : {"x", "c", "y"})
    addValue(g, v, {1, 1, 3, 3});
  addInitializer(g, "w", {1, 1, 1, 1});
  addNode(g, "conv", "Conv", {"x", "w"}, {"c"});
  addNode(g, "relu", "Relu", {"c"}, {"y"});
  Program p = nasc::ir::lowerGraph(g);
  REQUIRE(p.calls.size() == 2);
  CHECK(p.calls[0].nodes == std::vector<std::string>{"conv"});

  g.outputs = {"y", "z"};
  addValue(g, "z", {1, 1, 3, 3});
  addNode(g, "relu2", "Relu", {"c"}, {"z"});
  CHECK(nasc::ir::lowerGraph(g).calls.size() == 3);
}

TEST_CASE("graph outputs that are a graph input or an initializer are copied") {
  Graph g;
  g.source = "<test>";
  g.inputs = {"x"};
  g.outputs = {"x", "k"};
  addValue(g, "x", {2, 3});
  addInitializer(g, "k", {4});
  Program p = nasc::ir::lowerGraph(g);
  REQUIRE(p.calls.size() == 2);
  CHECK(p.buffers[static_cast<size_t>(p.outputs[0])].kind == BufferKind::Output);
  CHECK(p.outputs[0] != p.inputs[0]);
  std::vector<float> x{1, 2, 3, 4, 5, 6};
  auto out = nasc::lowertest::runProgram(p, {x});
  CHECK(out.at(0) == x);
  CHECK(out.at(1) == g.initializers.at("k").f);
  for (const auto &call : p.calls) {
    std::set<std::string> names;
    for (const auto &t : call.kernel.tensors)
      names.insert(t.name);
    CHECK(names.size() == call.kernel.tensors.size());
  }
}

TEST_CASE("kernel and tensor names are unique C identifiers") {
  Graph g;
  g.source = "<test>";
  g.inputs = {"in:0"};
  g.outputs = {"out/1"};
  addValue(g, "in:0", {1, 4});
  addValue(g, "mid", {1, 4});
  addValue(g, "out/1", {1, 4});
  addNode(g, "0relu", "Relu", {"in:0"}, {"mid"});
  addNode(g, "0relu", "Relu", {"mid"}, {"out/1"});
  Program p = nasc::ir::lowerGraph(g);
  std::set<std::string> kernels;
  for (const auto &call : p.calls) {
    kernels.insert(call.kernel.name);
    CHECK(isIdentifier(call.kernel.name));
    for (const auto &t : call.kernel.tensors)
      CHECK(isIdentifier(t.name));
    for (const auto &st : call.kernel.statements) {
      CHECK(isIdentifier(st.name));
      CHECK(st.reduction.size() == st.depth());
    }
  }
  CHECK(kernels.size() == p.calls.size());
}

TEST_CASE("a standalone BatchNormalization reads precomputed per-channel scale and shift") {
  Graph g = oneNodeGraph("BatchNormalization", {1, 2, 1, 1}, {1, 2, 1, 1}, {{"epsilon", 0.5f}},
                         {"gamma", "beta", "mean", "var"});
  for (const char *v : {"gamma", "beta", "mean", "var"})
    addValue(g, v, {2});
  g.initializers["gamma"] = nasc::ir::Tensor{nasc::ir::DType::Float32, {2}, {2.0f, 1.0f}, {}};
  g.initializers["beta"] = nasc::ir::Tensor{nasc::ir::DType::Float32, {2}, {1.0f, -1.0f}, {}};
  g.initializers["mean"] = nasc::ir::Tensor{nasc::ir::DType::Float32, {2}, {3.0f, 0.0f}, {}};
  g.initializers["var"] = nasc::ir::Tensor{nasc::ir::DType::Float32, {2}, {3.5f, 0.5f}, {}};
  Program p = nasc::ir::lowerGraph(g);
  // channel 0: (5 - 3) / sqrt(3.5 + 0.5) · 2 + 1 = 3; channel 1: 4 / 1 · 1 - 1 = 3.
  auto out = nasc::lowertest::runProgram(p, {{5.0f, 4.0f}});
  CHECK(out.at(0)[0] == Approx(3.0f));
  CHECK(out.at(0)[1] == Approx(3.0f));
  size_t constants = 0;
  for (const auto &b : p.buffers)
    constants += b.kind == BufferKind::Constant && b.shape == Shape{2};
  CHECK(constants == 2);
}

TEST_CASE("Clip (ReLU6) clamps between its constant min and max inputs") {
  Graph g = oneNodeGraph("Clip", {1, 4}, {1, 4}, {}, {"lo", "hi"});
  g.initializers["lo"] = nasc::ir::Tensor{nasc::ir::DType::Float32, {}, {0.0f}, {}};
  g.initializers["hi"] = nasc::ir::Tensor{nasc::ir::DType::Float32, {}, {6.0f}, {}};
  auto out = nasc::lowertest::runProgram(nasc::ir::lowerGraph(g), {{-1.0f, 2.0f, 6.5f, 6.0f}});
  CHECK(out.at(0) == std::vector<float>{0.0f, 2.0f, 6.0f, 6.0f});
}

TEST_CASE("unsupported ops and attributes are errors naming the node and attribute") {
  Graph g = oneNodeGraph("Softmax", {1, 4}, {1, 4});
  REQUIRE_THROWS_WITH(nasc::ir::lowerGraph(g),
                      Catch::Contains("node 'op' (Softmax)") && Catch::Contains("not supported"));
  Graph conv =
      oneNodeGraph("Conv", {1, 1, 4, 4}, {1, 1, 4, 4}, {{"auto_pad", std::string("FOO")}}, {"w"});
  addInitializer(conv, "w", {1, 1, 3, 3});
  REQUIRE_THROWS_WITH(nasc::ir::lowerGraph(conv),
                      Catch::Contains("node 'op' (Conv)") && Catch::Contains("'auto_pad'"));
  Graph badShape =
      oneNodeGraph("MaxPool", {1, 1, 4, 4}, {1, 1, 3, 3}, {{"kernel_shape", Ints{3, 3}}});
  REQUIRE_THROWS_WITH(nasc::ir::lowerGraph(badShape),
                      Catch::Contains("node 'op' (MaxPool)") && Catch::Contains("expected 2"));
  Graph groups = oneNodeGraph("Conv", {1, 3, 4, 4}, {1, 2, 2, 2}, {{"group", int64_t(2)}}, {"w"});
  addInitializer(groups, "w", {2, 1, 3, 3});
  REQUIRE_THROWS_WITH(nasc::ir::lowerGraph(groups), Catch::Contains("'group'"));
  Graph clip = oneNodeGraph("Clip", {1, 4}, {1, 4}, {}, {"lo"});
  addValue(clip, "lo", {});
  REQUIRE_THROWS_AS(nasc::ir::lowerGraph(clip), nasc::Error);
}
