// `nasc fisher --proxy P`: the same JSON shape for every proxy, PyTorch's values with the model's
// weights, and an error for an unknown proxy.
#include "test/support/CliRun.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>

namespace {

using Result = nasc::test::CliResult;

/// Runs `nasc fisher ARGS`.
Result nascFisher(const std::string &args) { return nasc::test::runNasc("fisher " + args); }

const std::string kCifar = std::string(NASC_BINARY_DIR) + "/fisher/cifar_resnet18.onnx";

} // namespace

TEST_CASE("nasc fisher --proxy P --json has the same shape for every proxy and "
          "PyTorch's values",
          "[nas][cli][proxy]") {
  std::ifstream file(std::string(NASC_SOURCE_DIR) +
                     "/test/data/fisher/cifar_resnet18_proxies.json");
  const nlohmann::json proxies = nlohmann::json::parse(file);
  for (const std::string proxy : {"synflow", "jacob_cov", "snip", "grad_norm"}) {
    const Result r = nascFisher(kCifar + " --weights model --batch 16 --json --proxy " + proxy);
    INFO(proxy << ": " << r.output);
    REQUIRE(r.status == 0);
    const nlohmann::json got = nlohmann::json::parse(r.output);
    const nlohmann::json &expected = proxies[proxy];
    REQUIRE(got["total"].is_number());
    REQUIRE(got["layers"].is_object());
    CHECK(got["proxy"] == proxy);
    CHECK(got["seeds"] == 1);
    CHECK(got["std"]["layers"].is_object());
    // synflow is printed as its natural log; PyTorch's values are linear: 1e-3 relative of those
    // is 1e-3 absolute in ln.
    auto check = [&](double value, double want) {
      if (proxy == "synflow")
        CHECK(value == Approx(std::log(want)).margin(1e-3));
      else
        CHECK(value == Approx(want).epsilon(1e-3));
    };
    check(got["total"].get<double>(), expected["total"].get<double>());
    REQUIRE(got["layers"].size() == expected["layers"].size());
    for (const auto &[name, value] : expected["layers"].items())
      check(got["layers"][name].get<double>(), value.get<double>());
  }
}

TEST_CASE("nasc fisher --proxy fisher is the default", "[nas][cli][proxy]") {
  const Result plain = nascFisher(kCifar + " --weights model --batch 4 --json");
  const Result named = nascFisher(kCifar + " --weights model --batch 4 --json --proxy fisher");
  REQUIRE(plain.status == 0);
  REQUIRE(named.status == 0);
  CHECK(plain.output == named.output);
  CHECK(nlohmann::json::parse(plain.output)["proxy"] == "fisher");
}

TEST_CASE("nasc fisher --proxy at initialisation averages seeds and prints a table",
          "[nas][cli][proxy]") {
  const Result r = nascFisher(kCifar + " --batch 4 --seeds 2 --proxy snip");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Matchers::Contains("snip"));
  CHECK_THAT(r.output, Catch::Matchers::Contains("/layers/layers.7/conv2/Conv_output_0"));
  CHECK_THAT(r.output, Catch::Matchers::Contains("(2 runs)"));
}

TEST_CASE("nasc fisher --proxy synflow prints ln synflow and says so", "[nas][cli][proxy]") {
  const Result r = nascFisher(kCifar + " --weights model --proxy synflow");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output,
             Catch::Matchers::Contains("ln synflow") && Catch::Matchers::Contains("std (ln)"));
  const Result help = nascFisher("--help");
  CHECK_THAT(help.output, Catch::Matchers::Contains("natural log"));
}

TEST_CASE("nasc fisher rejects an unknown proxy", "[nas][cli][proxy]") {
  const Result r = nascFisher(kCifar + " --proxy zen --json");
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Catch::Matchers::Contains("--proxy"));
  CHECK_THAT(r.output, Catch::Matchers::Contains("zen"));
}
