// The short-training proxy (compiler/nas/ShortTraining.h): SGD losses and trained weights against
// PyTorch's torch.optim.SGD on the same tiny net, weights and data
// (tools/short_training_reference.py, test/data/capacity/), and the loss falling on Fashion-MNIST.
#include "compiler/nas/ShortTraining.h"
#include "ir/Error.h"
#include "ir/import/ModelLoader.h"
#include "ir/passes/Passes.h"
#include "test/support/SmallCnn.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

namespace {

using namespace nasc;

const std::string kData = std::string(NASC_SOURCE_DIR) + "/test/data/capacity/";

nlohmann::json readJson(const std::string &path) {
  std::ifstream file(path);
  REQUIRE(file.good());
  return nlohmann::json::parse(file);
}

/// The images and labels PyTorch trained on.
nas::ImageBatch referenceStream(const nlohmann::json &expected) {
  nas::ImageBatch stream;
  stream.images.shape = expected["images"]["shape"].get<ir::Shape>();
  stream.images.f = expected["images"]["data"].get<std::vector<float>>();
  stream.labels = expected["labels"].get<std::vector<int64_t>>();
  return stream;
}

ir::Graph tinyGraph() {
  ir::Graph graph = ir::loadModelRaw(kData + "tiny_sgd.json");
  ir::prepareForTraining(graph);
  return graph;
}

/// A 3-layer CNN on 28x28 Fashion-MNIST (test::writeSmallCnn): conv 3x3 (16) -> relu -> conv
/// 3x3 stride 2 (32) -> relu -> global average pool -> Gemm to 10 classes; BNs are added by
/// measureShortTraining.
std::string writeSmallCnn() { return test::writeSmallCnn("short_training_cnn", {16, 32, 1, 28}); }

} // namespace

TEST_CASE("SGD step losses and trained weights match PyTorch's SGD", "[nas][training]") {
  const nlohmann::json expected = readJson(kData + "tiny_sgd_expected.json");
  ir::Graph graph = tinyGraph();
  const std::vector<double> losses =
      nas::sgdLosses(graph, referenceStream(expected), expected["batch"].get<int64_t>(),
                     expected["steps"].get<int>(), expected["lr"].get<double>());
  const auto reference = expected["losses"].get<std::vector<double>>();
  REQUIRE(losses.size() == reference.size());
  for (size_t i = 0; i < losses.size(); ++i) {
    INFO("step " << i);
    CHECK(losses[i] == Approx(reference[i]).epsilon(1e-5));
  }
  for (const auto &[name, values] : expected["weights"].items()) {
    const std::vector<float> &got = graph.initializers.at(name).f;
    REQUIRE(got.size() == values.size());
    for (size_t i = 0; i < got.size(); ++i) {
      INFO(name << "[" << i << "]");
      CHECK(got[i] == Approx(values[i].get<double>()).margin(1e-5));
    }
  }
}

TEST_CASE("lastStepsMean averages the last window of losses", "[nas][training]") {
  CHECK(nas::lastStepsMean({4, 3, 2, 1}, 2) == Approx(1.5));
  CHECK(nas::lastStepsMean({4, 3}, 5) == Approx(3.5));
  CHECK_THROWS_AS(nas::lastStepsMean({}, 1), Error);
  CHECK_THROWS_AS(nas::lastStepsMean({1}, 0), Error);
}

TEST_CASE("sgdLosses rejects a stream shorter than steps x batch", "[nas][training]") {
  const nlohmann::json expected = readJson(kData + "tiny_sgd_expected.json");
  ir::Graph graph = tinyGraph();
  CHECK_THROWS_WITH(nas::sgdLosses(graph, referenceStream(expected), 5, 6, 0.1),
                    Catch::Contains("needs 30 images"));
}

TEST_CASE("Short training on Fashion-MNIST lowers the loss below chance", "[nas][training]") {
  nas::ShortTrainingOptions options;
  options.steps = 30;
  options.window = 5;
  const double trained = nas::measureShortTraining(writeSmallCnn(), options).mean;
  options.steps = 1;
  options.window = 1;
  const double initial = nas::measureShortTraining(writeSmallCnn(), options).mean;
  INFO("initial " << initial << ", after 30 steps " << trained);
  CHECK(initial == Approx(std::log(10.0)).margin(0.5));
  CHECK(trained < initial - 0.25);
}
