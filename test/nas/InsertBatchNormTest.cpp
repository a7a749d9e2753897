// `--bn insert`: a training-mode BN after every Conv that feeds none, and what it changes.
#include "compiler/nas/InsertBatchNorm.h"
#include "compiler/nas/FisherPotential.h"
#include "compiler/nas/NeuralStep.h"
#include "ir/passes/Passes.h"

#include <catch2/catch.hpp>

#include <random>

namespace {

using namespace nasc;
using Ints = std::vector<int64_t>;

ir::Tensor randomTensor(const ir::Shape &shape, unsigned seed) {
  std::mt19937 engine(seed);
  std::normal_distribution<float> normal(0.0f, 0.5f);
  ir::Tensor t = ir::Tensor::zeros(shape);
  for (float &v : t.f)
    v = normal(engine);
  return t;
}

/// x (4,2,5,5) -> conv1 (no BN) -> Relu -> conv2 -> BN -> GlobalAveragePool -> Flatten -> logits
/// (4, 3): conv1 feeds no BN, conv2 feeds one.
ir::Graph twoConvNetwork() {
  ir::Graph g;
  g.source = "two_conv";
  g.inputs = {"x"};
  g.outputs = {"logits"};
  g.values["x"] = {ir::DType::Float32, {4, 2, 5, 5}};
  g.values["c1"] = {ir::DType::Float32, {4, 3, 5, 5}};
  g.initializers["w1"] = randomTensor({3, 2, 3, 3}, 1);
  g.initializers["b1"] = randomTensor({3}, 2);
  g.initializers["w2"] = randomTensor({3, 3, 3, 3}, 3);
  for (const char *name : {"s", "b", "m", "v"})
    g.initializers[name] = ir::Tensor::zeros({3}, 1.0f);
  g.nodes = {
      {"conv1", "Conv", {"x", "w1", "b1"}, {"c1"}, {{"pads", Ints{1, 1, 1, 1}}}},
      {"relu", "Relu", {"c1"}, {"r"}, {}},
      {"conv2", "Conv", {"r", "w2"}, {"c2"}, {}},
      {"bn2", "BatchNormalization", {"c2", "s", "b", "m", "v"}, {"n2"}, {}},
      {"gap", "GlobalAveragePool", {"n2"}, {"p"}, {}},
      {"flat", "Flatten", {"p"}, {"logits"}, {}},
  };
  return g;
}

} // namespace

TEST_CASE("insertBatchNorm adds a BN only after Convs that feed none", "[nas][bn]") {
  ir::Graph graph = twoConvNetwork();
  CHECK(nas::insertBatchNorm(graph) == 1);
  REQUIRE(graph.nodes.size() == 7);
  const ir::Node &bn = graph.nodes[1];
  CHECK(bn.op_type == "BatchNormalization");
  CHECK(bn.name == "conv1_bn");
  CHECK(bn.inputs[0] == "c1");
  CHECK(bn.outputs == std::vector<std::string>{"c1_bn"});
  CHECK(graph.nodes[2].inputs == std::vector<std::string>{"c1_bn"});
  CHECK(graph.initializers.at(bn.inputs[1]).f == std::vector<float>(3, 1.0f));
  CHECK(graph.initializers.at(bn.inputs[2]).f == std::vector<float>(3, 0.0f));
  CHECK(graph.initializers.at(bn.inputs[4]).f == std::vector<float>(3, 1.0f));
  CHECK(bn.getFloat("epsilon", 0) == 1e-5f);
  CHECK(graph.shapeOf("c1_bn") == Ints{4, 3, 5, 5});
  CHECK(nas::fisherActivation(graph, graph.nodes[0]) == "c1_bn");
  CHECK(nas::insertBatchNorm(graph) == 0);
}

TEST_CASE("With an inserted BN the Fisher Potential ignores the scale of the "
          "Conv weights",
          "[nas][bn]") {
  // BN in training mode normalises away a positive scale of its input, so a and g (hence every
  // layer's value) are unchanged when conv1's weights and bias are multiplied by 3, while the
  // Conv's own output (the activation before insertion) is scaled.
  ir::Graph graph = twoConvNetwork();
  const ir::Tensor x = randomTensor({4, 2, 5, 5}, 4);
  const std::vector<int64_t> labels{0, 1, 2, 1};
  auto scaled = [](ir::Graph g) {
    for (const char *name : {"w1", "b1"})
      for (float &v : g.initializers.at(name).f)
        v *= 3.0f;
    return g;
  };
  nas::insertBatchNorm(graph);
  const nas::FisherPotential normalised = nas::fisherPotential(graph, x, labels);
  const nas::FisherPotential normalisedScaled = nas::fisherPotential(scaled(graph), x, labels);
  REQUIRE(normalised.layers.size() == 2);
  CHECK(normalised.layers[0].conv == "c1");
  CHECK(normalised.layers[0].activation == "c1_bn");
  CHECK(normalised.layers[0].value > 0);
  for (size_t k = 0; k < 2; ++k)
    CHECK(normalisedScaled.layers[k].value == Approx(normalised.layers[k].value).epsilon(1e-4));
}

TEST_CASE("The parts of a seq layer are one layer: one BN after their Concat, one Fisher value",
          "[nas][bn]") {
  // seq1(1, 1, 1) (three dense parts of one channel) and seq3(5) (five one-row strips) with
  // sliced / copied weights compute conv1 exactly, so with one BN after their Concat the Fisher
  // Potential must be the unsplit network's, layer by layer.
  ir::Graph original = twoConvNetwork();
  ir::prepareForTraining(original);
  const ir::Tensor x = randomTensor({4, 2, 5, 5}, 4);
  const std::vector<int64_t> labels{0, 1, 2, 1};
  ir::Graph reference = original;
  nas::insertBatchNorm(reference);
  const nas::FisherPotential expected = nas::fisherPotential(reference, x, labels);
  for (const nas::NeuralStep &step :
       {nas::NeuralStep{"conv1", "seq1", {1, 1, 1}}, nas::NeuralStep{"conv1", "seq3", {5}}}) {
    INFO(step.toString());
    ir::Graph split = nas::applyNeuralStep(original, step);
    CHECK(nas::insertBatchNorm(split) == 1);
    const nas::FisherPotential fisher = nas::fisherPotential(split, x, labels);
    REQUIRE(fisher.layers.size() == 2);
    CHECK(fisher.layers[0].conv == "c1");
    CHECK(fisher.layers[0].activation == "c1_bn");
    for (size_t k = 0; k < 2; ++k)
      CHECK(fisher.layers[k].value == Approx(expected.layers[k].value).epsilon(1e-5));
  }
}
