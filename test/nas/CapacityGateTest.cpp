// The capacity gate's policies (compiler/nas/CapacityGate.h) on given proxy values, checked
// against the formulas by hand.
#include "compiler/nas/CapacityGate.h"
#include "ir/Error.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

namespace {

using namespace nasc;
using nas::Policy;

/// A profile with every proxy set to `base` unless overridden.
nas::CapacityProfile profile(std::map<std::string, double> overrides, double base = 1.0) {
  nas::CapacityProfile p;
  for (const std::string &name : nas::capacityProxyNames())
    p.proxies[name] = base;
  for (const auto &[name, value] : overrides)
    p.proxies[name] = value;
  return p;
}

bool legal(Policy policy, const nas::CapacityProfile &original,
           const nas::CapacityProfile &transformed, nas::GateParams params = {}) {
  return nas::decide(policy, original, transformed, params).legal;
}

} // namespace

TEST_CASE("paper: FP(new) >= theta * FP(original), boundary included", "[nas][capacity]") {
  const auto original = profile({{"fisher", 2.0}});
  nas::GateParams params;
  params.theta = 0.5;
  CHECK(legal(Policy::Paper, original, profile({{"fisher", 1.0}}), params));
  CHECK_FALSE(legal(Policy::Paper, original, profile({{"fisher", 0.999}}), params));
  CHECK(legal(Policy::Paper, original, profile({{"fisher", 2.0}})));
  CHECK_FALSE(legal(Policy::Paper, original, profile({{"fisher", 1.99}})));
  const nas::Decision d = nas::decide(Policy::Paper, original, profile({{"fisher", 1.5}}), {});
  CHECK(d.policy == Policy::Paper);
  CHECK_THAT(d.reason,
             Catch::Contains("Fisher Potential") && Catch::Contains("1.5") && Catch::Contains("2"));
}

TEST_CASE("fisher-layer: smallest ratio over the layers NEW shares with ORIGINAL",
          "[nas][capacity]") {
  auto original = profile({}), transformed = profile({});
  original.fisherLayers = {{"a", 4.0}, {"b", 2.0}, {"gone", 1.0}};
  transformed.fisherLayers = {{"a", 8.0}, {"b", 1.5}, {"added", 1e-9}};
  nas::GateParams params;
  params.theta = 0.75; // ratios: a 2, b 0.75 ("added" ignored, "gone" unmatched)
  CHECK(legal(Policy::FisherLayer, original, transformed, params));
  params.theta = 0.76;
  const nas::Decision d = nas::decide(Policy::FisherLayer, original, transformed, params);
  CHECK_FALSE(d.legal);
  CHECK_THAT(d.reason, Catch::Contains("'b'") && Catch::Contains("0.75"));
  transformed.fisherLayers = {{"added", 1.0}};
  CHECK_FALSE(legal(Policy::FisherLayer, original, transformed));
}

TEST_CASE("fisher-seeds: a strict majority of the paired seeds", "[nas][capacity]") {
  auto original = profile({}), transformed = profile({});
  original.fisherRuns = {1.0, 2.0, 3.0};
  transformed.fisherRuns = {1.0, 1.9, 3.1}; // seeds 0 and 2 pass at theta 1
  CHECK(legal(Policy::FisherSeeds, original, transformed));
  transformed.fisherRuns = {0.9, 1.9, 3.1};
  CHECK_FALSE(legal(Policy::FisherSeeds, original, transformed));
  original.fisherRuns = {1.0, 2.0};
  transformed.fisherRuns = {1.0, 1.0}; // 1 of 2 is no majority
  CHECK_FALSE(legal(Policy::FisherSeeds, original, transformed));
  transformed.fisherRuns = {1.0};
  CHECK_THROWS_AS(nas::decide(Policy::FisherSeeds, original, transformed, {}), Error);
}

TEST_CASE("synflow: natural-log ratio against the tolerance; a synflow of 0 refused",
          "[nas][capacity]") {
  // The profiles hold ln synflow: a synflow of 1e30 is ln(1e30) = 69.08.
  const auto original = profile({{"synflow", std::log(1e30)}});
  // ln(1e30 / e^t) - ln(1e30) = -t exactly at the default tolerance t.
  const double t = nas::kDefaultTolerances.at(Policy::Synflow);
  CHECK(legal(Policy::Synflow, original,
              profile({{"synflow", std::log(1e30) - t + std::log(1.000001)}})));
  CHECK_FALSE(legal(Policy::Synflow, original,
                    profile({{"synflow", std::log(1e30) - t - std::log(1.001)}})));
  nas::GateParams params;
  params.tolerances[Policy::Synflow] = std::log(100.0) + 1e-9;
  CHECK(legal(Policy::Synflow, original, profile({{"synflow", std::log(1e28)}}), params));
  const nas::Decision ratio =
      nas::decide(Policy::Synflow, original, profile({{"synflow", std::log(1e28)}}), params);
  CHECK_THAT(ratio.reason, Catch::Contains("ln synflow 64.4724 (new) vs 69.0776 (original)") &&
                               Catch::Contains("ln ratio -4.60517"));
  // A synflow of 0 (ln -inf: nothing flows) or NaN has no log-ratio.
  const double minusInf = -std::numeric_limits<double>::infinity();
  const nas::Decision d =
      nas::decide(Policy::Synflow, original, profile({{"synflow", minusInf}}), {});
  CHECK_FALSE(d.legal);
  CHECK_THAT(d.reason,
             Catch::Contains("a synflow is 0 (ln -inf)") && Catch::Contains("so no log-ratio"));
  CHECK_FALSE(
      legal(Policy::Synflow, profile({{"synflow", minusInf}}), profile({{"synflow", minusInf}})));
  CHECK_FALSE(legal(Policy::Synflow, original,
                    profile({{"synflow", std::numeric_limits<double>::quiet_NaN()}})));
}

TEST_CASE("synflow: a layer whose share of the total falls by more than the share tolerance is "
          "refused, whatever the total",
          "[nas][capacity]") {
  // Original: two main-path layers of 100 each and a projection of 1 (total 201). New: the
  // projection grouped, 1 -> 1/8, the total 200.125 (ln ratio -0.004): its share falls by
  // ln((1 / 201) / (0.125 / 200.125)) = ln 8.0 - ln(201 / 200.125) = 2.07508. The profiles hold
  // the ln of each value.
  auto withLayers = [](double projection) {
    nas::CapacityProfile p = profile({{"synflow", std::log(200 + projection)}});
    p.synflowLayers = {
        {"a", std::log(100.0)}, {"b", std::log(100.0)}, {"proj", std::log(projection)}};
    return p;
  };
  const nas::CapacityProfile original = withLayers(1), grouped = withLayers(0.125);
  const nas::Decision d = nas::decide(Policy::Synflow, original, grouped, {});
  CHECK_FALSE(d.legal);
  CHECK_THAT(d.reason, Catch::Contains("'proj'") && Catch::Contains("ln 2.07508"));
  nas::GateParams params;
  params.synflowShareTolerance = std::log(8.0) - std::log(201 / 200.125) + 1e-9;
  CHECK(legal(Policy::Synflow, original, grouped, params));
  params.synflowShareTolerance -= 2e-9;
  CHECK_FALSE(legal(Policy::Synflow, original, grouped, params));
  // Every layer halved: the total halves (ln ratio -0.69, within 6.5) and no share moves.
  nas::CapacityProfile halved = profile({{"synflow", std::log(100.5)}});
  halved.synflowLayers = {{"a", std::log(50.0)}, {"b", std::log(50.0)}, {"proj", std::log(0.5)}};
  CHECK(legal(Policy::Synflow, original, halved));
  // Layers only in one profile are not compared; without layers the total decides alone.
  nas::CapacityProfile renamed = grouped;
  renamed.synflowLayers = {
      {"a", std::log(100.0)}, {"b", std::log(100.0)}, {"proj_part0", std::log(0.125)}};
  CHECK(legal(Policy::Synflow, original, renamed));
  CHECK(legal(Policy::Synflow, profile({{"synflow", std::log(201.0)}}),
              profile({{"synflow", std::log(200.125)}})));
  // A layer with a synflow of 0 (ln -inf) has no share to compare and is skipped.
  nas::CapacityProfile cut = profile({{"synflow", std::log(200.0)}});
  cut.synflowLayers = {{"a", std::log(100.0)},
                       {"b", std::log(100.0)},
                       {"proj", -std::numeric_limits<double>::infinity()}};
  CHECK(legal(Policy::Synflow, original, cut));
  // The vote's synflow member applies the rule too.
  CHECK_THAT(nas::decide(Policy::Vote, original, grouped, {}).reason,
             Catch::Contains("synflow refused") && Catch::Contains("'proj'"));
}

TEST_CASE("synflow: a layer keeping less than the weight floor of its weights is refused, "
          "whatever the total",
          "[nas][capacity]") {
  // 3x3 convs of 64 -> 64 channels, 36,864 weights each; conv2 after bottleneck(4) of conv1
  // (16 input channels) and group(2): 64 x 8 x 9 = 4,608 weights, 1/8 of 36,864.
  auto withWeights = [](int64_t conv1, int64_t conv2) {
    nas::CapacityProfile p = profile({{"synflow", std::log(1e20)}});
    p.layerWeights = {{"conv1", conv1}, {"conv2", conv2}};
    return p;
  };
  const nas::CapacityProfile original = withWeights(36864, 36864);
  const nas::Decision d = nas::decide(Policy::Synflow, original, withWeights(9216, 4608), {});
  CHECK_FALSE(d.legal);
  CHECK_THAT(d.reason, Catch::Contains("'conv2' keeps 0.125 of its weights (4608 of 36864)"));
  // Exactly a quarter (bottleneck(4) of conv1 alone: conv1 16 x 64 x 9, conv2 64 x 16 x 9) is kept.
  CHECK(nas::kLayerWeightFloor == 0.25);
  CHECK(legal(Policy::Synflow, original, withWeights(9216, 9216)));
  CHECK_FALSE(legal(Policy::Synflow, original, withWeights(9216, 9215)));
  nas::GateParams params;
  params.layerWeightFloor = 0.125;
  CHECK(legal(Policy::Synflow, original, withWeights(9216, 4608), params));
  // Layers only in one profile are not compared; the vote's synflow member applies the floor.
  nas::CapacityProfile renamed = profile({{"synflow", std::log(1e20)}});
  renamed.layerWeights = {{"conv2_part0", 10}};
  CHECK(legal(Policy::Synflow, original, renamed));
  CHECK_THAT(nas::decide(Policy::Vote, original, withWeights(9216, 4608), {}).reason,
             Catch::Contains("synflow refused") && Catch::Contains("'conv2' keeps"));
}

TEST_CASE("jacob_cov: difference of log-determinants against the tolerance", "[nas][capacity]") {
  const auto original = profile({{"jacob_cov", 100.0}});
  CHECK(legal(Policy::JacobCov, original, profile({{"jacob_cov", 95.0}})));
  CHECK_FALSE(legal(Policy::JacobCov, original, profile({{"jacob_cov", 94.9}})));
  const double minusInf = -std::numeric_limits<double>::infinity();
  CHECK_FALSE(legal(Policy::JacobCov, original, profile({{"jacob_cov", minusInf}})));
  CHECK(legal(Policy::JacobCov, profile({{"jacob_cov", minusInf}}),
              profile({{"jacob_cov", minusInf}})));
}

TEST_CASE("train-loss: new loss at most the original's plus the tolerance", "[nas][capacity]") {
  const auto original = profile({{"train_loss", 1.0}});
  CHECK(legal(Policy::TrainLoss, original, profile({{"train_loss", 1.04}})));
  CHECK_FALSE(legal(Policy::TrainLoss, original, profile({{"train_loss", 1.06}})));
  CHECK(legal(Policy::TrainLoss, original, profile({{"train_loss", 0.5}})));
}

TEST_CASE("vote: at least two of synflow, jacob_cov and train-loss", "[nas][capacity]") {
  // ln synflow: 100 -> 1e-10 is a ln ratio of -25.3.
  const double lnBad = std::log(1e-10);
  const auto original =
      profile({{"synflow", std::log(100.0)}, {"jacob_cov", 50.0}, {"train_loss", 1.0}});
  const auto synflowBad = profile({{"synflow", lnBad}, {"jacob_cov", 50.0}, {"train_loss", 1.0}});
  const auto twoBad = profile({{"synflow", lnBad}, {"jacob_cov", 10.0}, {"train_loss", 1.0}});
  CHECK(legal(Policy::Vote, original, synflowBad));
  const nas::Decision d = nas::decide(Policy::Vote, original, twoBad, {});
  CHECK_FALSE(d.legal);
  CHECK_THAT(d.reason, Catch::Contains("1 of 3"));
}

TEST_CASE("policy names round-trip and unknown names are refused", "[nas][capacity]") {
  for (const std::string &name : nas::policyNames())
    CHECK(nas::policyName(nas::parsePolicy(name)) == name);
  CHECK_THROWS_WITH(nas::parsePolicy("fisher"), Catch::Contains("paper, fisher-layer"));
  CHECK_THROWS_AS(nas::decide(Policy::Paper, nas::CapacityProfile{}, profile({}), {}), Error);
}
