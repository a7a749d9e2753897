// group(G) as an isl rewrite of the convolution's Scop (compiler/nas/GroupScop.h): it must give
// exactly the domains and accesses that lowering a Conv with group G gives.
#include "compiler/nas/GroupScop.h"
#include "compiler/nas/NeuralStep.h"
#include "ir/passes/Passes.h"
#include "test/support/RandomTensor.h"
#include "test/support/ScopCheck.h"

#include <catch2/catch.hpp>

namespace {

using namespace nasc;
using Ints = std::vector<int64_t>;

/// x (1, 8, 6, 6) -> conv (8 -> 8, 3x3, stride 2, pad 1, bias) -> relu -> y.
ir::Graph convRelu() {
  ir::Graph g;
  g.source = "conv.json";
  g.inputs = {"x"};
  g.outputs = {"y"};
  g.values["x"] = {ir::DType::Float32, {1, 8, 6, 6}};
  g.initializers["w"] = test::uniformTensor({8, 8, 3, 3}, 1, 0.3f);
  g.initializers["b"] = test::uniformTensor({8}, 2, 0.3f);
  for (const auto &[name, tensor] : g.initializers)
    g.values[name] = {ir::DType::Float32, tensor.shape};
  g.nodes = {{"conv",
              "Conv",
              {"x", "w", "b"},
              {"c"},
              {{"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}}},
             {"relu", "Relu", {"c"}, {"y"}, {}}};
  ir::prepareForTraining(g);
  return g;
}

ir::Kernel convKernel(const ir::Graph &graph) {
  return nas::kernelOf(nas::lowerForInference(graph), "conv");
}

} // namespace

TEST_CASE("groupScop equals the Scop of the lowered grouped Conv", "[nas][neural][isl]") {
  poly::IslContext isl;
  const ir::Graph dense = convRelu();
  const ir::Kernel denseKernel = convKernel(dense);
  const poly::Scop denseScop = poly::buildScop(isl.get(), denseKernel);
  for (int64_t G : {2, 4, 8}) {
    const ir::Kernel groupedKernel =
        convKernel(nas::applyNeuralStep(dense, {"conv", "group", {G}}));
    const poly::Scop expected = poly::buildScop(isl.get(), groupedKernel);
    const nas::ScopRelations rewritten = nas::groupScop(denseKernel, denseScop, "w", G);
    INFO("G = " << G);
    test::checkSameRelations(rewritten, nas::relationsOf(expected));
    CHECK_NOTHROW(nas::checkInsideTensors(rewritten, nas::tensorShapes(groupedKernel)));
  }
}

TEST_CASE("checkInsideTensors names the tensor and the accesses out of bounds",
          "[nas][neural][isl]") {
  poly::IslContext isl;
  const ir::Kernel kernel = convKernel(convRelu());
  const poly::Scop scop = poly::buildScop(isl.get(), kernel);
  const nas::ScopRelations grouped = nas::groupScop(kernel, scop, "w", 4);
  std::map<std::string, ir::Shape> shapes = nas::tensorShapes(kernel);
  shapes["w"] = {8, 1, 3, 3};
  CHECK_THROWS_WITH(
      nas::checkInsideTensors(grouped, shapes),
      Catch::Contains("accesses outside tensor 'w' 8x1x3x3") &&
          Catch::Contains("{ w[i0, 1, i2, i3] : 0 <= i0 <= 7 and 0 <= i2 <= 2 and 0 <= i3 <= 2 }"));
  CHECK_THROWS_WITH(nas::groupScop(kernel, scop, "w", 3), Catch::Contains("group(3)"));
}
