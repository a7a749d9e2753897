// synflow on networks deep enough that float32 overflows (nas::scaleForSynflow), against values
// computed by hand: with every weight w and an all-ones input, every value of a channel is the
// same number, and Σ W ⊙ dR/dW of a layer is dR/dt at t = 1 when that layer's weights are
// multiplied by t. nas::synflow's values are natural logs, compared with the ln of those values.
#include "compiler/nas/Synflow.h"
#include "ir/Error.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

namespace {

using namespace nasc;

/// Graph input "x" of shape (1, channels, 1, 1).
ir::Graph withInput(int64_t channels) {
  ir::Graph graph;
  graph.source = "<synflow test>";
  graph.inputs = {"x"};
  graph.values["x"] = {ir::DType::Float32, {1, channels, 1, 1}};
  return graph;
}

/// Appends a 1x1 Conv of `x` to `out` channels with every weight `w`; returns its output.
std::string conv(ir::Graph &graph, const std::string &name, const std::string &x, int64_t in,
                 int64_t out, float w) {
  graph.initializers[name + ".w"] = ir::Tensor::zeros({out, in, 1, 1}, w);
  graph.nodes.push_back({name, "Conv", {x, name + ".w"}, {name}, {}});
  return name;
}

std::string node(ir::Graph &graph, const std::string &name, const std::string &op,
                 std::vector<std::string> inputs,
                 std::map<std::string, ir::Attribute> attributes = {}) {
  graph.nodes.push_back({name, op, std::move(inputs), {name}, std::move(attributes)});
  return name;
}

} // namespace

TEST_CASE("synflow of a residual network whose float32 values overflow", "[nas][proxy][synflow]") {
  // B blocks y = relu(x + conv2(relu(conv1(x)))), 1x1 convs of C channels, weights 1: each conv
  // multiplies by a = C, a block by 1 + a², so R = C (1 + a²)^B, about 1e50 here (> 3.4e38), and
  // each conv's synflow is dR/dt = C a² (1 + a²)^(B - 1).
  const int64_t channels = 16, blocks = 20;
  ir::Graph graph = withInput(channels);
  std::string x = "x";
  for (int b = 0; b < blocks; ++b) {
    const std::string p = "b" + std::to_string(b);
    const std::string h = node(graph, p + ".r1", "Relu", {conv(graph, p + ".c1", x, 16, 16, 1)});
    const std::string sum =
        node(graph, p + ".add", "Add", {x, conv(graph, p + ".c2", h, 16, 16, 1)});
    x = node(graph, p + ".r2", "Relu", {sum});
  }
  graph.outputs = {x};
  const double a = channels,
               logLayer = std::log(channels * a * a) + (blocks - 1) * std::log1p(a * a);
  REQUIRE(logLayer / std::log(10.0) > 45);

  const nas::ProxyScore score = nas::synflow(graph);
  REQUIRE(score.layers.size() == 2 * blocks);
  for (const nas::LayerScore &layer : score.layers) {
    INFO(layer.conv);
    CHECK(layer.value == Approx(logLayer).margin(1e-5));
  }
  CHECK(score.total == Approx(logLayer + std::log(2.0 * blocks)).margin(1e-5));
}

TEST_CASE("ln synflow of a chain beyond the double range is finite and exact",
          "[nas][proxy][synflow]") {
  // D 1x1 convs of C channels, weights w, on an all-ones input: every entry after l convs is
  // (C w)^l, R = C (C w)^D, and R is linear in each conv's weights (no bias), so every conv's
  // synflow is dR/dt at t = 1 = R: ln S_l = ln C + D ln(C w), ln total = ln D + ln S_l. With
  // C = 16, w = 4, D = 200 that is 834.6 > ln(DBL_MAX) = 709.8, where synflow in double
  // overflowed.
  const int64_t channels = 16, depth = 200;
  const float w = 4.0f;
  ir::Graph graph = withInput(channels);
  std::string x = "x";
  for (int64_t l = 0; l < depth; ++l)
    x = conv(graph, "c" + std::to_string(l), x, channels, channels, w);
  graph.outputs = {x};
  const double logLayer =
      std::log(static_cast<double>(channels)) + depth * std::log(static_cast<double>(channels) * w);
  REQUIRE(logLayer > std::log(std::numeric_limits<double>::max()));

  const nas::ProxyScore score = nas::synflow(graph);
  REQUIRE(score.layers.size() == static_cast<size_t>(depth));
  for (const nas::LayerScore &layer : score.layers) {
    INFO(layer.conv);
    CHECK(std::isfinite(layer.value));
    CHECK(layer.value == Approx(logLayer).margin(1e-4));
  }
  CHECK(std::isfinite(score.total));
  CHECK(score.total == Approx(logLayer + std::log(static_cast<double>(depth))).margin(1e-4));
}

TEST_CASE("synflow through Concats of channels at very different scales does not underflow",
          "[nas][proxy][synflow]") {
  // L units x -> m = conv_m(Concat(a, b)): a = conv_a(x), 1 -> 1 channel, weight 2; b = conv_b(x),
  // 1 -> 63 channels, weights 0; m: 64 -> 1, weights 1. Every unit doubles x, so R = 2^L, and R
  // is linear in conv_a's and conv_m's weights: S = R = 2^L for each (ln S = L ln 2), S = 0 for
  // conv_b (ln -inf); ln total = ln(2 L) + L ln 2. One bound for all 64 channels of a Concat
  // would make each unit's bound 64 times too large (64^30 = 1.5e54): the float32 copy would
  // underflow to 0.
  const int units = 30;
  ir::Graph graph = withInput(1);
  std::string x = "x";
  for (int u = 0; u < units; ++u) {
    const std::string p = "u" + std::to_string(u);
    const std::string a = conv(graph, p + ".a", x, 1, 1, 2.0f),
                      b = conv(graph, p + ".b", x, 1, 63, 0);
    const std::string cat = node(graph, p + ".cat", "Concat", {a, b}, {{"axis", int64_t{1}}});
    graph.values[a] = {ir::DType::Float32, {1, 1, 1, 1}};
    graph.values[b] = {ir::DType::Float32, {1, 63, 1, 1}};
    graph.values[cat] = {ir::DType::Float32, {1, 64, 1, 1}};
    x = conv(graph, p + ".m", cat, 64, 1, 1.0f);
    graph.values[x] = {ir::DType::Float32, {1, 1, 1, 1}};
  }
  graph.outputs = {x};
  const double logR = units * std::log(2.0);

  const nas::ProxyScore score = nas::synflow(graph);
  REQUIRE(score.layers.size() == 3 * static_cast<size_t>(units));
  for (const nas::LayerScore &layer : score.layers) {
    INFO(layer.conv);
    if (layer.conv.back() == 'b')
      CHECK(layer.value == -std::numeric_limits<double>::infinity());
    else
      CHECK(layer.value == Approx(logR).margin(1e-5));
  }
  CHECK(score.total == Approx(std::log(2.0 * units) + logR).margin(1e-5));
}

TEST_CASE("ln synflow of a conv through which nothing flows is -inf and adds nothing",
          "[nas][proxy][synflow]") {
  // c1 (weights 2, 2 -> 2 channels) feeds the output, R = 2 · 4 = 8 = S(c1); c0 reads x too but
  // its output reaches no graph output, so dR/dW = 0: ln S(c0) = -inf, ln total = ln 8.
  ir::Graph graph = withInput(2);
  conv(graph, "c0", "x", 2, 2, 1.0f);
  graph.outputs = {conv(graph, "c1", "x", 2, 2, 2.0f)};
  const nas::ProxyScore score = nas::synflow(graph);
  REQUIRE(score.layers.size() == 2);
  CHECK(std::isinf(score.layers[0].value));
  CHECK(score.layers[0].value < 0);
  CHECK(score.layers[1].value == Approx(std::log(8.0)).margin(1e-6));
  CHECK(score.total == Approx(std::log(8.0)).margin(1e-6));
}

TEST_CASE("synflow through a Concat of values at different scales and a biased Gemm",
          "[nas][proxy][synflow]") {
  // x (1, 4, 1, 1) -> c1 = conv 4 -> 4 weights 3 (every entry 12) -> Concat(c1, x) (8 channels:
  // 12 x 4, 1 x 4) -> c2 = conv 8 -> 2 weights 0.5 (every entry 0.5 (48 + 4) = 26) -> Flatten ->
  // Gemm to 3 columns, weights 2, bias 5 (every entry 2 · 2 · 26 + 5 = 109): R = 327.
  // synflow(c1) = dR/dt scaling c1's weights: R(t) = 3 (4 · 0.5 (48 t + 4) + 5) -> 3 · 4 · 0.5 · 48
  // = 288; synflow(c2) = 3 · 4 · 26 = 312 (R is linear in c2's weights apart from the bias).
  ir::Graph graph = withInput(4);
  const std::string c1 = conv(graph, "c1", "x", 4, 4, 3.0f);
  const std::string cat = node(graph, "cat", "Concat", {c1, "x"}, {{"axis", int64_t{1}}});
  const std::string flat =
      node(graph, "flat", "Flatten", {conv(graph, "c2", cat, 8, 2, 0.5f)}, {{"axis", int64_t{1}}});
  graph.initializers["fc.w"] = ir::Tensor::zeros({3, 2}, 2.0f);
  graph.initializers["fc.b"] = ir::Tensor::zeros({3}, 5.0f);
  node(graph, "fc", "Gemm", {flat, "fc.w", "fc.b"}, {{"transB", int64_t{1}}});
  graph.outputs = {"fc"};

  const nas::ProxyScore score = nas::synflow(graph);
  REQUIRE(score.layers.size() == 2);
  CHECK(score.layers[0].value == Approx(std::log(288.0)).margin(1e-6));
  CHECK(score.layers[1].value == Approx(std::log(312.0)).margin(1e-6));
  CHECK(score.total == Approx(std::log(600.0)).margin(1e-6));
}

TEST_CASE("synflow names the node whose weight is shared", "[nas][proxy][synflow]") {
  ir::Graph graph = withInput(2);
  conv(graph, "c1", "x", 2, 2, 1.0f);
  graph.nodes.push_back({"c2", "Conv", {"c1", "c1.w"}, {"c2"}, {}});
  graph.outputs = {"c2"};
  CHECK_THROWS_WITH(nas::synflow(graph), Catch::Contains("'c1'") && Catch::Contains("shared"));
}
