// measureFisher (what `nasc fisher` prints): weights and BN policies, runs over seeds.
#include "compiler/nas/FisherMeasurement.h"
#include "ir/Error.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

namespace {

using namespace nasc;
const std::string kCifar = std::string(NASC_BINARY_DIR) + "/fisher/cifar_resnet18.onnx";

} // namespace

TEST_CASE("measureFisher with the model's weights is the PyTorch value", "[nas][fisher]") {
  std::ifstream file(std::string(NASC_SOURCE_DIR) + "/test/data/fisher/cifar_resnet18.json");
  const nlohmann::json expected = nlohmann::json::parse(file);
  nas::FisherOptions options;
  options.batch = 16;
  options.initWeights = false;
  options.insertBn = false;
  const nas::FisherMeasurement m = nas::measureFisher(kCifar, options);
  REQUIRE(m.totals.size() == 1);
  CHECK(m.total.mean == Approx(expected["total"].get<double>()).epsilon(1e-3));
  CHECK(m.total.std == 0);
  REQUIRE(m.layers.size() == 20);
  CHECK(m.layerValues[0].mean ==
        Approx(expected["layers"][m.layers[0]].get<double>()).epsilon(1e-3));
  options.insertBn = true;
  CHECK(nas::measureFisher(kCifar, options).total.mean == Approx(m.total.mean).epsilon(1e-12));
}

TEST_CASE("measureFisher at initialisation runs seed, seed + 1, ... and averages",
          "[nas][fisher]") {
  nas::FisherOptions options;
  options.batch = 8;
  options.seed = 5;
  options.seeds = 2;
  const nas::FisherMeasurement two = nas::measureFisher(kCifar, options);
  REQUIRE(two.totals.size() == 2);
  CHECK(two.totals[0] != two.totals[1]);
  CHECK(two.total.mean == Approx((two.totals[0] + two.totals[1]) / 2));
  CHECK(two.total.std == Approx(std::fabs(two.totals[0] - two.totals[1]) / 2));
  options.seed = 6;
  options.seeds = 1;
  CHECK(nas::measureFisher(kCifar, options).totals[0] == two.totals[1]);
  options.seeds = 0;
  CHECK_THROWS_AS(nas::measureFisher(kCifar, options), Error);
}
