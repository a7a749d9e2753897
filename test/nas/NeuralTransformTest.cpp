// Neural transformations on the graph (compiler/nas/NeuralStep.h): parsing, what group,
// depthwise and bottleneck compute with sliced weights, their refusals, and the FLOP/parameter
// counts. (The ONNX output against PyTorch modules: tools/mutate_check.py.)
#include "compiler/nas/ModelCost.h"
#include "compiler/nas/NeuralStep.h"
#include "ir/passes/Passes.h"
#include "runtime/reference/Reference.h"
#include "test/support/RandomTensor.h"

#include <catch2/catch.hpp>

namespace {

using namespace nasc;
using Ints = std::vector<int64_t>;

/// x (2,8,6,6) -> conv1 (8->8, 3x3, pad 1, bias) -> bn1 -> relu -> conv2 (8->8, 3x3, pad 1) ->
/// add (+ x) -> gap -> flatten -> fc (8 -> 3): conv1 sits inside the residual block, conv2
/// feeds its Add.
ir::Graph residualNet() {
  ir::Graph g;
  g.source = "residual.json";
  g.inputs = {"x"};
  g.outputs = {"logits"};
  g.values["x"] = {ir::DType::Float32, {2, 8, 6, 6}};
  g.initializers["w1"] = test::uniformTensor({8, 8, 3, 3}, 1, 0.3f);
  g.initializers["b1"] = test::uniformTensor({8}, 2, 0.3f);
  g.initializers["s"] = test::uniformTensor({8}, 3, 0.5f);
  g.initializers["b"] = test::uniformTensor({8}, 4, 0.5f);
  g.initializers["m"] = test::uniformTensor({8}, 5, 0.5f);
  g.initializers["v"] = ir::Tensor::zeros({8}, 2.0f);
  g.initializers["w2"] = test::uniformTensor({8, 8, 3, 3}, 6, 0.3f);
  g.initializers["fc"] = test::uniformTensor({3, 8}, 7, 0.3f);
  const Ints pads{1, 1, 1, 1};
  g.nodes = {
      {"conv1", "Conv", {"x", "w1", "b1"}, {"c1"}, {{"pads", pads}}},
      {"bn1", "BatchNormalization", {"c1", "s", "b", "m", "v"}, {"n1"}, {}},
      {"relu", "Relu", {"n1"}, {"r1"}, {}},
      {"conv2", "Conv", {"r1", "w2"}, {"c2"}, {{"pads", pads}}},
      {"add", "Add", {"c2", "x"}, {"a"}, {}},
      {"gap", "GlobalAveragePool", {"a"}, {"p"}, {}},
      {"flat", "Flatten", {"p"}, {"f"}, {}},
      {"fc", "Gemm", {"f", "fc"}, {"logits"}, {{"transB", int64_t{1}}}},
  };
  for (const auto &[name, tensor] : g.initializers)
    g.values[name] = {ir::DType::Float32, tensor.shape};
  ir::prepareForTraining(g);
  return g;
}

ir::Tensor logits(const ir::Graph &graph) {
  return runtime::runReference(graph, {{"x", test::uniformTensor({2, 8, 6, 6}, 9, 1.0f)}})
      .at("logits");
}

/// Zeroes W[k, c, ...] (K, C, r, s) where `drop(k, c)`.
template <typename Drop> void zeroWeights(ir::Graph &graph, const std::string &name, Drop drop) {
  ir::Tensor &w = graph.initializers.at(name);
  const int64_t K = w.shape[0], C = w.shape[1], window = w.size() / (K * C);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c)
      if (drop(k, c))
        std::fill_n(w.f.begin() + (k * C + c) * window, window, 0.0f);
}

void checkClose(const ir::Tensor &a, const ir::Tensor &b) {
  REQUIRE(a.shape == b.shape);
  for (size_t i = 0; i < a.f.size(); ++i)
    CHECK(a.f[i] == Approx(b.f[i]).margin(1e-5));
}

std::string refusal(const ir::Graph &graph, const std::string &step) {
  try {
    nas::applyNeuralStep(graph, nas::parseNeuralStep(step));
  } catch (const nas::RefusedTransformation &e) {
    return e.what();
  }
  return "not refused";
}

} // namespace

TEST_CASE("parseNeuralStep reads NODE:transform(args)", "[nas][neural]") {
  const nas::NeuralStep step = nas::parseNeuralStep("resnet/conv0:0:group(4)");
  CHECK(step.node == "resnet/conv0:0");
  CHECK(step.transform == "group");
  CHECK(step.args == Ints{4});
  CHECK(step.toString() == "resnet/conv0:0:group(4)");
  CHECK(nas::parseNeuralStep("c:depthwise").args.empty());
  CHECK_THROWS_WITH(nas::parseNeuralStep("c:group(0)"), Catch::Contains("not a positive integer"));
  CHECK_THROWS_WITH(nas::parseNeuralStep("c:group(4,x)"), Catch::Contains("'x'"));
  CHECK_THROWS_WITH(nas::parseNeuralStep("c:group"), Catch::Contains("takes 1 integer argument"));
  CHECK_THROWS_WITH(nas::parseNeuralStep("c:shuffle(2)"), Catch::Contains("unknown"));
  CHECK_THROWS_WITH(nas::parseNeuralStep("group(2)"), Catch::Contains("expected NODE:"));
}

TEST_CASE("group(G) computes the dense conv with its off-diagonal blocks zeroed", "[nas][neural]") {
  const ir::Graph original = residualNet();
  for (int64_t G : {2, 4, 8}) {
    const ir::Graph grouped = nas::applyNeuralStep(original, {"conv1", "group", {G}});
    CHECK(grouped.initializers.at("w1").shape == ir::Shape{8, 8 / G, 3, 3});
    CHECK(grouped.nodes[0].getInt("group", 1) == G);
    ir::Graph masked = original;
    zeroWeights(masked, "w1", [&](int64_t k, int64_t c) { return k / (8 / G) != c / (8 / G); });
    checkClose(logits(grouped), logits(masked));
  }
}

TEST_CASE("group composes: group(2) then group(2) is group(4), depthwise is group(C)",
          "[nas][neural]") {
  const ir::Graph original = residualNet();
  const ir::Graph twice = nas::applyNeuralStep(
      nas::applyNeuralStep(original, {"conv1", "group", {2}}), {"conv1", "group", {2}});
  checkClose(logits(twice), logits(nas::applyNeuralStep(original, {"conv1", "group", {4}})));
  const ir::Graph depthwise = nas::applyNeuralStep(original, {"conv2", "depthwise", {}});
  CHECK(depthwise.nodes[3].getInt("group", 1) == 8);
  ir::Graph diagonal = original;
  zeroWeights(diagonal, "w2", [](int64_t k, int64_t c) { return k != c; });
  checkClose(logits(depthwise), logits(diagonal));
}

TEST_CASE("seq1 and seq2 compute the dense conv with each part's off-diagonal blocks zeroed",
          "[nas][neural]") {
  const ir::Graph original = residualNet();
  const ir::Graph split = nas::applyNeuralStep(original, {"conv1", "seq1", {1, 2}});
  CHECK(split.nodes[2].op_type == "Concat");
  CHECK(split.nodes[2].outputs == std::vector<std::string>{"c1"});
  CHECK(split.initializers.at(split.nodes[1].inputs[1]).shape == ir::Shape{4, 4, 3, 3});
  ir::Graph masked = original;
  zeroWeights(masked, "w1", [](int64_t k, int64_t c) { return k >= 4 && (k - 4) / 2 != c / 4; });
  checkClose(logits(split), logits(masked));

  CHECK_THAT(refusal(original, "conv1:seq2(2, 3)"),
             Catch::Contains("attribute 'group' would become 3, which does not divide the input "
                             "channels C = 8"));
  const ir::Graph peel4 = nas::applyNeuralStep(original, {"conv1", "seq2", {4, 2}});
  ir::Graph peel4Masked = original;
  zeroWeights(peel4Masked, "w1",
              [](int64_t k, int64_t c) { return k >= 4 && (k - 4) / 2 != c / 4; });
  checkClose(logits(peel4), logits(peel4Masked));
  CHECK_THAT(refusal(original, "conv1:seq1(1, 1, 1)"),
             Catch::Contains("3 parts do not divide the K = 8 output channels"));
  CHECK_THAT(refusal(original, "conv1:seq2(8, 2)"), Catch::Contains("u = 8 leaves none"));
  CHECK_THAT(refusal(nas::applyNeuralStep(original, {"conv1", "group", {2}}), "conv1:seq1(1, 2)"),
             Catch::Contains("the Conv is already grouped"));
}

TEST_CASE("bottleneck(B) computes the network without the dropped channels", "[nas][neural]") {
  const ir::Graph original = residualNet();
  const ir::Graph narrow = nas::applyNeuralStep(original, {"conv1", "bottleneck", {2}});
  CHECK(narrow.initializers.at("w1").shape == ir::Shape{4, 8, 3, 3});
  CHECK(narrow.initializers.at("s").shape == ir::Shape{4});
  CHECK(narrow.initializers.at("w2").shape == ir::Shape{8, 4, 3, 3});
  CHECK(narrow.shapeOf("r1") == ir::Shape{2, 4, 6, 6});
  ir::Graph dropped = original;
  zeroWeights(dropped, "w2", [](int64_t, int64_t c) { return c >= 4; });
  checkClose(logits(narrow), logits(dropped));
}

TEST_CASE("bottleneck follows Flatten into the Gemm's features", "[nas][neural]") {
  ir::Graph g = residualNet();
  g.nodes.erase(g.nodes.begin() + 3, g.nodes.begin() + 5);
  g.nodes[3].inputs = {"r1"};
  g.values.clear();
  g.values["x"] = {ir::DType::Float32, {2, 8, 6, 6}};
  for (const auto &[name, tensor] : g.initializers)
    g.values[name] = {ir::DType::Float32, tensor.shape};
  ir::prepareForTraining(g);
  const ir::Graph narrow = nas::applyNeuralStep(g, {"conv1", "bottleneck", {4}});
  CHECK(narrow.initializers.at("fc").shape == ir::Shape{3, 2});
  ir::Graph dropped = g;
  ir::Tensor &fc = dropped.initializers.at("fc");
  for (int64_t row = 0; row < 3; ++row)
    std::fill_n(fc.f.begin() + row * 8 + 2, 6, 0.0f);
  checkClose(logits(narrow), logits(dropped));
}

TEST_CASE("structural refusals name the node, the transformation and why", "[nas][neural]") {
  const ir::Graph g = residualNet();
  CHECK_THAT(refusal(g, "conv1:group(3)"),
             Catch::Contains("residual.json: node 'conv1' (Conv): group(3): attribute 'group' "
                             "would become 3, which does not divide"));
  CHECK_THAT(refusal(g, "conv2:bottleneck(2)"),
             Catch::Contains("node 'add' (Add): bottleneck(2): reads the narrowed value 'c2'"));
  CHECK_THAT(refusal(g, "conv1:bottleneck(3)"),
             Catch::Contains("B = 3 does not divide the 8 output channels per group"));
  const ir::Graph grouped = nas::applyNeuralStep(g, {"conv2", "group", {2}});
  CHECK_THAT(refusal(grouped, "conv1:bottleneck(2)"),
             Catch::Contains("node 'conv2' (Conv): bottleneck(2): its input 'r1' narrows but it "
                             "is a grouped Conv"));
  CHECK_THROWS_WITH(nas::applyNeuralStep(g, {"gap", "group", {2}}),
                    Catch::Contains("only Conv nodes can be transformed"));
  CHECK_THROWS_WITH(nas::applyNeuralStep(g, {"conv9", "group", {2}}),
                    Catch::Contains("no node named 'conv9'"));
}

TEST_CASE("modelCost counts 2 FLOP per multiply-accumulate and trainable parameters",
          "[nas][neural]") {
  const ir::Graph g = residualNet();
  const nas::ModelCost cost = nas::modelCost(g);
  const double conv = 2.0 * 2 * 8 * 6 * 6 * 8 * 9, fc = 2.0 * 2 * 3 * 8;
  CHECK(cost.flops == 2 * conv + fc);
  CHECK(cost.params == (8 * 8 * 9 + 8) + 2 * 8 + 8 * 8 * 9 + 3 * 8);
  const nas::ModelCost grouped = nas::modelCost(nas::applyNeuralStep(g, {"conv1", "group", {4}}));
  CHECK(grouped.flops == conv / 4 + conv + fc);
  CHECK(grouped.params == cost.params - 8 * 8 * 9 * 3 / 4);
  SECTION("convLayerWeights: W and B per conv layer, seq1's parts summed under its output") {
    using Weights = std::map<std::string, int64_t>;
    CHECK(nas::convLayerWeights(g) == Weights{{"c1", 8 * 8 * 9 + 8}, {"c2", 8 * 8 * 9}});
    // seq1(2, 4) of conv2: 4 output channels of group 2 (4 x 4 x 9) and 4 of group 4 (4 x 2 x 9),
    // their Concat writing c2; bottleneck(2) of conv1: 4 x 8 x 9 + 4, conv2 then reads 4.
    const ir::Graph seq = nas::applyNeuralStep(g, {"conv2", "seq1", {2, 4}});
    CHECK(nas::convLayerWeights(seq) ==
          Weights{{"c1", 8 * 8 * 9 + 8}, {"c2", 4 * 4 * 9 + 4 * 2 * 9}});
    const ir::Graph thin = nas::applyNeuralStep(g, {"conv1", "bottleneck", {2}});
    CHECK(nas::convLayerWeights(thin) == Weights{{"c1", 4 * 8 * 9 + 4}, {"c2", 8 * 4 * 9}});
    // The fractions kept: c1 292 of 584 and c2 288 of 576, both exactly a half.
    const std::map<std::string, double> fractions =
        nas::layerWeightFractions(nas::convLayerWeights(g), nas::convLayerWeights(thin));
    CHECK(fractions == std::map<std::string, double>{{"c1", 0.5}, {"c2", 0.5}});
    CHECK(nas::layerWeightFractions({{"c1", 584}, {"gone", 10}, {"empty", 0}},
                                    {{"c1", 146}, {"new", 5}, {"empty", 3}}) ==
          std::map<std::string, double>{{"c1", 0.25}});
  }
  SECTION("a MatMul with a weight operand counts 2·M·K·N and the weight") {
    ir::Graph m;
    m.inputs = {"a"};
    m.values["a"] = {ir::DType::Float32, {2, 3}};
    m.initializers["w"] = ir::Tensor::zeros({3, 4});
    m.values["w"] = {ir::DType::Float32, {3, 4}};
    m.values["y"] = {ir::DType::Float32, {2, 4}};
    m.nodes = {{"mm", "MatMul", {"a", "w"}, {"y"}, {}}};
    m.outputs = {"y"};
    const nas::ModelCost mm = nas::modelCost(m);
    CHECK(mm.flops == 2.0 * 2 * 3 * 4);
    CHECK(mm.params == 3 * 4);
  }
}
