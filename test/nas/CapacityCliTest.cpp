// `nasc capacity`: exit status 0 / 3 by the decision, the JSON contract, and errors for models of
// different tasks, on small CNN specs written by the test; `nasc mutate --check-capacity` records
// the same decision in the model it writes.
#include "test/support/CliRun.h"
#include "test/support/SmallCnn.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <fstream>
#include <map>

namespace {

using Result = nasc::test::CliResult;

/// Fast measurement options: small batch, one seed, few SGD steps.
const std::string kFast = " --batch 16 --seeds 1 --steps 3";

/// test::writeSmallCnn "capacity_cli_<name>" with both convs `width` wide on a 16x16 input.
std::string writeCnn(const std::string &name, int width, int channels = 1, int classes = 10) {
  return nasc::test::writeSmallCnn("capacity_cli_" + name, {width, width, channels, 16, classes});
}

Result nascCapacity(const std::string &args) { return nasc::test::runNasc("capacity " + args); }

} // namespace

TEST_CASE("nasc capacity: a model keeps its own capacity under paper (exit 0)",
          "[nas][cli][capacity]") {
  const std::string model = writeCnn("wide", 16);
  const Result r = nascCapacity(model + " " + model + " --policy paper" + kFast);
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("paper: legal") && Catch::Contains("train_loss") &&
                           Catch::Contains("Fisher Potential"));
}

TEST_CASE("nasc capacity --json: the contract, every proxy and every policy's decision",
          "[nas][cli][capacity]") {
  const std::string wide = writeCnn("wide", 16), narrow = writeCnn("narrow", 1);
  const Result r =
      nascCapacity(wide + " " + narrow + " --policy synflow --tolerance 1 --json" + kFast);
  INFO(r.output);
  // Width 16 -> 1 divides every Conv's synflow by far more than e (tolerance 1).
  CHECK(r.status == 3);
  const nlohmann::json got = nlohmann::json::parse(r.output);
  CHECK(got.size() == 5);
  CHECK(got["legal"] == false);
  CHECK(got["policy"] == "synflow");
  CHECK_THAT(got["reason"].get<std::string>(), Catch::Contains("synflow"));
  for (const std::string name :
       {"fisher", "synflow", "jacob_cov", "snip", "grad_norm", "train_loss", "params", "flops"}) {
    INFO(name);
    REQUIRE(got["proxies"][name]["original"].is_number());
    REQUIRE(got["proxies"][name]["new"].is_number());
  }
  CHECK(got["proxies"].size() == 8);
  // 16·1·9 + 16·16·9 + 10·16 + 10 against 1·1·9 + 1·1·9 + 10·1 + 10.
  CHECK(got["proxies"]["params"]["original"] == 2618.0);
  CHECK(got["proxies"]["params"]["new"] == 38.0);
  for (const std::string policy :
       {"paper", "fisher-layer", "fisher-seeds", "synflow", "jacob_cov", "train-loss", "vote"})
    CHECK(got["decisions"][policy].is_boolean());
  CHECK(got["decisions"].size() == 7);
  CHECK(got["decisions"]["synflow"] == false);
}

TEST_CASE("nasc capacity refuses models of different tasks and bad options",
          "[nas][cli][capacity]") {
  const std::string model = writeCnn("wide", 16);
  const std::string rgb = writeCnn("rgb", 16, 3), fiveClasses = writeCnn("five", 16, 1, 5);
  for (const std::string &other : {rgb, fiveClasses}) {
    const Result r = nascCapacity(model + " " + other + kFast);
    INFO(r.output);
    CHECK(r.status == 1);
    CHECK_THAT(r.output, Catch::Contains(model) && Catch::Contains(other));
  }
  const Result policy = nascCapacity(model + " " + model + " --policy best");
  CHECK(policy.status != 0);
  CHECK(policy.status != 3);
  const Result tolerance = nascCapacity(model + " " + model + " --policy paper --tolerance 1");
  CHECK(tolerance.status == 1);
  CHECK_THAT(tolerance.output, Catch::Contains("--theta"));
}

TEST_CASE("nasc mutate --check-capacity records the gate's decision that nasc capacity gives",
          "[nas][cli][capacity]") {
  const std::string model = writeCnn("mutate_base", 16);
  const std::string mutated = std::string(NASC_BINARY_DIR) + "/capacity_cli_mutated.onnx";
  const Result m = nasc::test::runNasc("mutate " + model + " --apply 'c2:group(4)' -o " + mutated +
                                       " --check-capacity --policy paper" + kFast);
  INFO(m.output);
  REQUIRE((m.status == 0 || m.status == 3));
  CHECK_THAT(m.output, Catch::Contains("capacity (paper): "));
  onnx::ModelProto proto;
  std::ifstream in(mutated, std::ios::binary);
  REQUIRE(proto.ParseFromIstream(&in));
  std::map<std::string, std::string> metadata;
  for (const auto &entry : proto.metadata_props())
    metadata[entry.key()] = entry.value();
  CHECK(metadata["nasc.transformations"] == "c2:group(4)");
  const nlohmann::json recorded = nlohmann::json::parse(metadata.at("nasc.capacity"));
  CHECK(recorded["policy"] == "paper");
  CHECK(recorded["legal"] == (m.status == 0));
  const Result c = nascCapacity(model + " " + mutated + " --policy paper --json" + kFast);
  const nlohmann::json direct = nlohmann::json::parse(c.output);
  CHECK(direct["legal"] == recorded["legal"]);
  CHECK(direct["proxies"] == recorded["proxies"]);
}

TEST_CASE("nasc capacity --policy-only measures and reports only the policy's proxies",
          "[nas][cli][capacity]") {
  const std::string wide = writeCnn("wide", 16), narrow = writeCnn("narrow", 1);
  const Result r = nascCapacity(wide + " " + narrow +
                                " --policy synflow --tolerance 1 --policy-only --json" + kFast);
  INFO(r.output);
  CHECK(r.status == 3);
  const nlohmann::json got = nlohmann::json::parse(r.output);
  CHECK(got["proxies"].size() == 1);
  CHECK(got["proxies"]["synflow"]["new"].is_number());
  CHECK(got["decisions"] == nlohmann::json{{"synflow", false}});
  const Result table = nascCapacity(wide + " " + wide + " --policy synflow --policy-only" + kFast);
  INFO(table.output);
  CHECK(table.status == 0);
  CHECK_THAT(table.output, Catch::Contains("synflow: legal") && !Catch::Contains("train_loss") &&
                               !Catch::Contains("paper"));
}

TEST_CASE("nasc capacity: grouping a shortcut projection moves synflow's total little and the "
          "projection's share by ln G, so the share rule refuses it",
          "[nas][cli][capacity]") {
  // CIFAR ResNet-18 (full width): layer4.0's 1x1 projection 256 -> 512 carries about 1% of
  // synflow's total, the main-path convs about R each. group(128) keeps each weight's
  // He-normal scale (fan_out = 512) and leaves 1/128 of the weights, so in expectation the flow
  // through the projection, Σ |W ⊙ dR/dW| (all-ones input), is 1/128 of the original's while
  // the total barely moves: the share falls by about ln 128 = 4.85.
  const std::string dir = std::string(NASC_BINARY_DIR) + "/capacity_cli_share_";
  const std::string spec = std::string(NASC_SOURCE_DIR) + "/models/cifar_resnet18.json";
  const std::string original = dir + "original.onnx", grouped = dir + "grouped.onnx";
  REQUIRE(
      nasc::test::runNasc("mutate " + spec + " --apply 'conv1:group(1)' -o " + original).status ==
      0);
  REQUIRE(nasc::test::runNasc("mutate " + spec + " --apply 'layer4.0.downsample.0:group(128)' -o " +
                              grouped)
              .status == 0);
  const Result r = nascCapacity(original + " " + grouped + " --policy-only --json --seeds 1");
  INFO(r.output);
  CHECK(r.status == 3);
  const nlohmann::json got = nlohmann::json::parse(r.output);
  const double total = got["proxies"]["synflow"]["new"].get<double>() -
                       got["proxies"]["synflow"]["original"].get<double>(); // both ln
  CHECK(std::abs(total) < 0.1);
  const std::string reason = got["reason"];
  CHECK_THAT(reason, Catch::Contains("share of layer 'layer4.0.downsample.0'"));
  const double fall = std::stod(reason.substr(reason.find("fell by ln ") + 11));
  CHECK(std::abs(fall - std::log(128.0)) < 0.3);
  // The weight floor (1/128 of the weights < 1/4) refuses it too; off here.
  const Result loose = nascCapacity(
      original + " " + grouped + " --policy-only --seeds 1 --share-tolerance 6 --weight-floor 0");
  INFO(loose.output);
  CHECK(loose.status == 0);
}

TEST_CASE("nasc capacity: steps stacked on one conv that leave it less than the weight floor "
          "are refused, whatever synflow's total",
          "[nas][cli][capacity]") {
  // c2 (3x3, 16 -> 16, 2304 weights) after bottleneck(4) of c1 reads 4 channels (576 weights,
  // a quarter: kept); group(2) on top leaves 16 x 2 x 9 = 288, 1/8 of 2304. Synflow's ln ratio
  // (about -ln 4 - ln 8 = -3.5) is within the default tolerance 6.5.
  const std::string model = writeCnn("floor_base", 16);
  const std::string dir = std::string(NASC_BINARY_DIR) + "/capacity_cli_floor_";
  const std::string quarter = dir + "quarter.onnx", eighth = dir + "eighth.onnx";
  REQUIRE(
      nasc::test::runNasc("mutate " + model + " --apply 'c1:bottleneck(4)' -o " + quarter).status ==
      0);
  REQUIRE(nasc::test::runNasc("mutate " + model +
                              " --apply 'c1:bottleneck(4)' --apply 'c2:group(2)' -o " + eighth)
              .status == 0);
  const std::string fast = " --policy-only --seeds 1 --batch 16";
  const Result kept = nascCapacity(model + " " + quarter + fast);
  INFO(kept.output);
  CHECK(kept.status == 0);
  const Result refused = nascCapacity(model + " " + eighth + fast + " --json");
  INFO(refused.output);
  CHECK(refused.status == 3);
  const nlohmann::json got = nlohmann::json::parse(refused.output);
  CHECK(got["proxies"]["synflow"]["new"].get<double>() -
            got["proxies"]["synflow"]["original"].get<double>() >
        -6.5); // both ln
  CHECK_THAT(got["reason"].get<std::string>(),
             Catch::Contains("layer 'c2' keeps 0.125 of its weights (288 of 2304) < 0.25"));
  const Result loose = nascCapacity(model + " " + eighth + fast + " --weight-floor 0.125");
  INFO(loose.output);
  CHECK(loose.status == 0);
}
