// bottleneck(B) as an isl rewrite of the Scops of the producer and consumer convolutions
// (compiler/nas/BottleneckScop.h): it must give exactly the domains and accesses that lowering
// the bottlenecked graph gives, and the tensor shapes that lowering declares.
#include "compiler/nas/BottleneckScop.h"
#include "compiler/nas/NeuralStep.h"
#include "ir/passes/Passes.h"
#include "test/support/RandomTensor.h"
#include "test/support/ScopCheck.h"

#include <catch2/catch.hpp>

namespace {

using namespace nasc;
using Ints = std::vector<int64_t>;

/// x (1, 8, 6, 6) -> conv1 (8 -> 8, 3x3, pad 1, bias) -> bn1 -> relu -> conv2 (8 -> 4, 3x3,
/// stride 2, pad 1) -> y: conv1 produces, conv2 consumes (BatchNormalization folds into conv1
/// and Relu fuses with it when lowered).
ir::Graph twoConvs() {
  ir::Graph g;
  g.source = "two_convs.json";
  g.inputs = {"x"};
  g.outputs = {"y"};
  g.values["x"] = {ir::DType::Float32, {1, 8, 6, 6}};
  g.initializers["w1"] = test::uniformTensor({8, 8, 3, 3}, 1, 0.3f);
  g.initializers["b1"] = test::uniformTensor({8}, 2, 0.3f);
  g.initializers["s"] = test::uniformTensor({8}, 3, 0.5f);
  g.initializers["b"] = test::uniformTensor({8}, 4, 0.5f);
  g.initializers["m"] = test::uniformTensor({8}, 5, 0.5f);
  g.initializers["v"] = ir::Tensor::zeros({8}, 2.0f);
  g.initializers["w2"] = test::uniformTensor({4, 8, 3, 3}, 6, 0.3f);
  for (const auto &[name, tensor] : g.initializers)
    g.values[name] = {ir::DType::Float32, tensor.shape};
  const Ints pads{1, 1, 1, 1};
  g.nodes = {{"conv1", "Conv", {"x", "w1", "b1"}, {"c1"}, {{"pads", pads}}},
             {"bn1", "BatchNormalization", {"c1", "s", "b", "m", "v"}, {"n1"}, {}},
             {"relu", "Relu", {"n1"}, {"r1"}, {}},
             {"conv2", "Conv", {"r1", "w2"}, {"y"}, {{"pads", pads}, {"strides", Ints{2, 2}}}}};
  ir::prepareForTraining(g);
  return g;
}

} // namespace

TEST_CASE("narrowScop equals the Scops of the lowered bottlenecked producer and consumer",
          "[nas][neural][isl]") {
  poly::IslContext isl;
  const ir::Graph dense = twoConvs();
  const ir::Program before = nas::lowerForInference(dense);
  for (int64_t B : {2, 4, 8}) {
    INFO("B = " << B);
    const ir::Program after =
        nas::lowerForInference(nas::applyNeuralStep(dense, {"conv1", "bottleneck", {B}}));
    for (const auto &[node, iterator] : {std::pair{"conv1", "k"}, std::pair{"conv2", "c"}}) {
      INFO(node << ": " << iterator << " < " << 8 / B);
      const ir::Kernel &kernel = nas::kernelOf(before, node);
      const ir::Kernel &expected = nas::kernelOf(after, node);
      const nas::ScopRelations narrowed =
          nas::narrowScop(poly::buildScop(isl.get(), kernel), iterator, 8 / B);
      test::checkSameRelations(narrowed, nas::relationsOf(poly::buildScop(isl.get(), expected)));
      CHECK(nas::narrowShapes(kernel, iterator, 8 / B) == nas::tensorShapes(expected));
      CHECK_NOTHROW(nas::checkInsideTensors(narrowed, nas::tensorShapes(expected)));
    }
  }
}

TEST_CASE("bottleneckRewrite narrows the producer and its consumer Conv", "[nas][neural][isl]") {
  poly::IslContext isl;
  const ir::Graph dense = twoConvs();
  const std::vector<nas::ScopRewrite> rewrites =
      nas::bottleneckRewrite(isl.get(), dense, "conv1", 2);
  REQUIRE(rewrites.size() == 2);
  CHECK(rewrites[0].label == "producer conv1");
  CHECK(rewrites[1].label == "consumer conv2");
  const ir::Program after =
      nas::lowerForInference(nas::applyNeuralStep(dense, {"conv1", "bottleneck", {2}}));
  const char *nodes[] = {"conv1", "conv2"};
  for (size_t i = 0; i < 2; ++i) {
    const ir::Kernel &expected = nas::kernelOf(after, nodes[i]);
    const std::string reduction = nas::findReduction(expected).statement->name;
    test::checkSameRelations(
        rewrites[i].after,
        nas::statementOnly(nas::relationsOf(poly::buildScop(isl.get(), expected)), reduction));
  }
  const isl::union_set kept(isl::set(isl.get(), "{ S1[n, k, oh, ow, c, r, s] : k <= 3 }"));
  CHECK(rewrites[0].after.domain.is_equal(rewrites[0].before.domain.intersect(kept)));
  const isl::union_set read(isl::set(isl.get(), "{ S1[n, k, oh, ow, c, r, s] : c <= 3 }"));
  CHECK(rewrites[1].after.domain.is_equal(rewrites[1].before.domain.intersect(read)));
}

TEST_CASE("bottleneckRewrite refuses what the graph change refuses", "[nas][neural][isl]") {
  poly::IslContext isl;
  CHECK_THROWS_AS(nas::bottleneckRewrite(isl.get(), twoConvs(), "conv2", 2),
                  nas::RefusedTransformation);
  CHECK_THROWS_AS(nas::bottleneckRewrite(isl.get(), twoConvs(), "conv1", 3),
                  nas::RefusedTransformation);
}
