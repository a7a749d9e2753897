// measureFisher (what `nasc fisher` prints): weights and BN policies, runs over seeds.
#include "compiler/nas/FisherMeasurement.h"
#include "ir/Error.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <limits>

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

TEST_CASE("logMeanStd is the ln of the linear values' mean and the spread of their logs",
          "[nas][fisher]") {
  // ln 1 and ln 3: mean ln((1 + 3) / 2) = ln 2, std of the logs (ln 3) / 2.
  const nas::MeanStd small = nas::logMeanStd({0.0, std::log(3.0)});
  CHECK(small.mean == Approx(std::log(2.0)).margin(1e-12));
  CHECK(small.std == Approx(std::log(3.0) / 2).margin(1e-12));
  // e^1000 and 3 e^1000 are beyond the double range; their mean is 2 e^1000.
  const nas::MeanStd large = nas::logMeanStd({1000.0, 1000.0 + std::log(3.0)});
  CHECK(large.mean == Approx(1000.0 + std::log(2.0)).margin(1e-9));
  CHECK(large.std == Approx(std::log(3.0) / 2).margin(1e-9));
  const double minusInf = -std::numeric_limits<double>::infinity();
  const nas::MeanStd zero = nas::logMeanStd({minusInf, minusInf});
  CHECK(zero.mean == minusInf);
  CHECK(zero.std == 0);
  // 0 and 2: mean 1 (ln 0), the logs' spread infinite.
  const nas::MeanStd mixed = nas::logMeanStd({minusInf, std::log(2.0)});
  CHECK(mixed.mean == Approx(0.0).margin(1e-12));
  CHECK(std::isinf(mixed.std));
}

TEST_CASE("measureFisher's synflow over seeds is ln of the mean of the seeds' synflow",
          "[nas][fisher][synflow]") {
  // Each seed re-initialises the weights, so the seeds' synflow differ; the stored mean is the
  // ln of their arithmetic mean (what the gate compared when synflow was linear).
  nas::FisherOptions options;
  options.proxy = nas::Proxy::Synflow;
  options.seeds = 3;
  const nas::FisherMeasurement m = nas::measureFisher(kCifar, options);
  REQUIRE(m.totals.size() == 3);
  CHECK(m.totals[0] != m.totals[1]);
  double linear = 0;
  for (double total : m.totals)
    linear += std::exp(total) / 3;
  CHECK(m.total.mean == Approx(std::log(linear)).margin(1e-12));
  REQUIRE(m.layers.size() == 20);
  CHECK(std::isfinite(m.layerValues[0].mean));
}
