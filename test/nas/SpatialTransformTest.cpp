// spatial_bottleneck and seq3 on the graph (compiler/nas/SpatialBottleneck.h, Seq3.h): what they
// compute with the weights they keep, checked against the original network on the Eigen
// reference executor, the nodes they make, their refusals and their FLOP / parameter counts.
// (The ONNX output against PyTorch modules: tools/mutate_check.py.)
#include "compiler/nas/ModelCost.h"
#include "compiler/nas/NeuralStep.h"
#include "ir/passes/Passes.h"
#include "runtime/reference/Reference.h"
#include "test/support/ConvGraph.h"

#include <catch2/catch.hpp>

#include <algorithm>

namespace {

using namespace nasc;
using Ints = std::vector<int64_t>;

/// x (2,4,8,8) -> conv (4->6, 3x3, pads 1, `stride`, bias) -> bn -> relu = y.
ir::Graph convNet(int64_t stride) {
  ir::Graph g = test::convGraph("spatial.json", {{2, 4, 8, 8}, 6, stride, 1}, "c");
  test::addBatchNorm(g, "c", "n", 6);
  g.nodes.push_back({"relu", "Relu", {"n"}, {"y"}, {}});
  return test::prepared(std::move(g));
}

ir::Tensor run(const ir::Graph &graph) {
  return runtime::runReference(graph, {{"x", test::uniformTensor({2, 4, 8, 8}, 9, 1.0f)}}).at("y");
}

const ir::Node &nodeNamed(const ir::Graph &graph, const std::string &name) {
  auto it = std::find_if(graph.nodes.begin(), graph.nodes.end(),
                         [&](const ir::Node &n) { return n.name == name; });
  REQUIRE(it != graph.nodes.end());
  return *it;
}

std::vector<std::string> opTypes(const ir::Graph &graph) {
  std::vector<std::string> ops;
  for (const ir::Node &node : graph.nodes)
    ops.push_back(node.op_type);
  return ops;
}

std::string refusal(const ir::Graph &graph, const nas::NeuralStep &step) {
  try {
    nas::applyNeuralStep(graph, step);
  } catch (const nas::RefusedTransformation &e) {
    return e.what();
  }
  return "not refused";
}

int64_t scalarInitializer(const ir::Graph &graph, const std::string &name) {
  return graph.initializers.at(name).i.at(0);
}

} // namespace

TEST_CASE("spatial_bottleneck(S) computes the conv at every S-th output and replicates it",
          "[nas][neural][spatial]") {
  for (int64_t stride : {1, 2}) {
    INFO("stride " << stride);
    const ir::Graph original = convNet(stride);
    const ir::Graph changed = nas::applyNeuralStep(original, {"conv", "spatial_bottleneck", {2}});
    CHECK(opTypes(changed) ==
          std::vector<std::string>{"Conv", "BatchNormalization", "Relu", "Resize"});
    CHECK(nodeNamed(changed, "conv").getInts("strides", {}) == Ints{2 * stride, 2 * stride});
    const ir::Tensor y = run(original), expanded = run(changed);
    REQUIRE(expanded.shape == y.shape);
    const int64_t O = y.shape[2];
    for (int64_t nk = 0; nk < 2 * 6; ++nk)
      for (int64_t oh = 0; oh < O; ++oh)
        for (int64_t ow = 0; ow < O; ++ow)
          CHECK(expanded.f[static_cast<size_t>((nk * O + oh) * O + ow)] ==
                Approx(y.f[static_cast<size_t>((nk * O + oh / 2 * 2) * O + ow / 2 * 2)])
                    .margin(1e-5));
  }
}

TEST_CASE("seq3(P) with copied weights computes the original conv strip by strip",
          "[nas][neural][spatial]") {
  for (int64_t stride : {1, 2}) {
    INFO("stride " << stride);
    const ir::Graph original = convNet(stride);
    const ir::Graph changed = nas::applyNeuralStep(original, {"conv", "seq3", {2}});
    const ir::Tensor y = run(original), strips = run(changed);
    REQUIRE(strips.shape == y.shape);
    for (size_t i = 0; i < y.f.size(); ++i)
      CHECK(strips.f[i] == Approx(y.f[i]).margin(1e-5));
  }
}

TEST_CASE("seq3 slices each strip's input rows with its halo and pads only outside X",
          "[nas][neural][spatial]") {
  // 8 output rows in 4 strips of 2, 3x3 kernel, stride 1, pad 1: strip i needs input rows
  // [2i − 1, 2i + 3), clipped to [0, 8), the clipped rows becoming padding.
  const ir::Graph changed = nas::applyNeuralStep(convNet(1), {"conv", "seq3", {4}});
  const std::vector<Ints> rows{{0, 3}, {1, 5}, {3, 7}, {5, 8}};
  const std::vector<Ints> pads{{1, 1, 0, 1}, {0, 1, 0, 1}, {0, 1, 0, 1}, {0, 1, 1, 1}};
  for (size_t i = 0; i < 4; ++i) {
    const std::string strip = "conv_strip" + std::to_string(i);
    const ir::Node &slice = nodeNamed(changed, strip + "_rows");
    CHECK(scalarInitializer(changed, slice.inputs[1]) == rows[i][0]);
    CHECK(scalarInitializer(changed, slice.inputs[2]) == rows[i][1]);
    CHECK(scalarInitializer(changed, slice.inputs[3]) == 2);
    CHECK(nodeNamed(changed, strip).getInts("pads", {}) == pads[i]);
  }
  CHECK(nodeNamed(changed, "conv_concat").getInt("axis", 0) == 2);
}

TEST_CASE("spatial_bottleneck and seq3 FLOP and parameters", "[nas][neural][spatial]") {
  const ir::Graph g = convNet(1);
  const double conv = 2.0 * 2 * 6 * 8 * 8 * 4 * 9;
  const int64_t params = 6 * 4 * 9 + 6 + 2 * 6;
  CHECK(nas::modelCost(g).flops == conv);
  CHECK(nas::modelCost(g).params == params);
  const nas::ModelCost spatial =
      nas::modelCost(nas::applyNeuralStep(g, {"conv", "spatial_bottleneck", {2}}));
  CHECK(spatial.flops == conv / 4);
  CHECK(spatial.params == params);
  const nas::ModelCost strips = nas::modelCost(nas::applyNeuralStep(g, {"conv", "seq3", {4}}));
  CHECK(strips.flops == conv);
  CHECK(strips.params == params + 3 * (6 * 4 * 9 + 6));
}

TEST_CASE("spatial_bottleneck and seq3 refusals name the node and why", "[nas][neural][spatial]") {
  const ir::Graph g = convNet(1);
  CHECK_THAT(refusal(g, {"conv", "spatial_bottleneck", {3}}),
             Catch::Contains("node 'conv' (Conv): spatial_bottleneck(3): S = 3 does not divide "
                             "the output extent 8"));
  CHECK_THAT(refusal(g, {"conv", "seq3", {3}}),
             Catch::Contains("seq3(3): 3 strips do not divide the 8 output rows of 'c'"));
  CHECK_THAT(refusal(g, {"conv", "seq3", {1}}), Catch::Contains("P must be at least 2"));
}
