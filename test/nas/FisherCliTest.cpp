// `nasc fisher`: the binary's JSON and table output, defaults and errors.
#include "test/support/CliRun.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>

namespace {

using Result = nasc::test::CliResult;

/// Runs `nasc fisher ARGS`.
Result nascFisher(const std::string &args) { return nasc::test::runNasc("fisher " + args); }

const std::string kCifar = std::string(NASC_BINARY_DIR) + "/fisher/cifar_resnet18.onnx";

} // namespace

TEST_CASE("nasc fisher --weights model --json prints PyTorch's values", "[nas][cli]") {
  std::ifstream file(std::string(NASC_SOURCE_DIR) + "/test/data/fisher/cifar_resnet18.json");
  const nlohmann::json expected = nlohmann::json::parse(file);
  const Result r = nascFisher(kCifar + " --weights model --batch 16 --json");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const nlohmann::json got = nlohmann::json::parse(r.output);
  CHECK(got["total"].get<double>() == Approx(expected["total"].get<double>()).epsilon(1e-3));
  CHECK(got["seeds"] == 1);
  REQUIRE(got["layers"].size() == expected["layers"].size());
  for (const auto &[name, value] : expected["layers"].items())
    CHECK(got["layers"][name].get<double>() == Approx(value.get<double>()).epsilon(1e-3));
  CHECK(got["std"]["total"] == 0.0);
}

TEST_CASE("nasc fisher at initialisation prints every layer and the spread over seeds",
          "[nas][cli]") {
  const Result r = nascFisher(kCifar + " --batch 4 --seeds 2");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Matchers::Contains("/layers/layers.7/conv2/Conv_output_0"));
  CHECK_THAT(r.output, Catch::Matchers::Contains("total"));
  CHECK_THAT(r.output, Catch::Matchers::Contains("(2 runs)"));
}

TEST_CASE("nasc fisher rejects bad options", "[nas][cli]") {
  CHECK(nascFisher(kCifar + " --weights random").status != 0);
  CHECK(nascFisher(kCifar + " --bn drop").status != 0);
  CHECK(nascFisher(kCifar + " --batch 0").status != 0);
}
