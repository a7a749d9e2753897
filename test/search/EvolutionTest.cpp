// The evolution strategy's parts: the XGBoost cost model (compiler/search/CostModel.h) fits a
// linear function and a separable set within bounds worked out by hand, the candidate features
// (CandidateFeatures.h) of a hand-built candidate are the vector written out by hand, and
// proposeCandidate (Evolution.h) is deterministic, proposes only new candidates and, on a
// synthetic search, finds a better one than random draws of the same count.
#include "compiler/search/Evolution.h"
#include "compiler/nas/FisherMeasurement.h"
#include "compiler/nas/ModelCost.h"
#include "compiler/search/CandidateFeatures.h"
#include "compiler/search/CostModel.h"
#include "compiler/search/SearchSpace.h"
#include "ir/Error.h"
#include "test/support/SmallResnet.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <string>

using namespace nasc;
using Catch::Matchers::Contains;

namespace {

/// The training grid: x0, x1 in {0, h, ..., 1}, h = 0.1.
constexpr int kSteps = 10;
constexpr float kH = 0.1f;

std::vector<std::vector<float>> grid() {
  std::vector<std::vector<float>> rows;
  for (int i = 0; i <= kSteps; ++i)
    for (int j = 0; j <= kSteps; ++j)
      rows.push_back({static_cast<float>(i) * kH, static_cast<float>(j) * kH});
  return rows;
}

float linear(const std::vector<float> &x) { return 3 * x[0] - 2 * x[1]; }

const ir::Graph &resnet18() {
  static const ir::Graph graph =
      nas::loadForTraining(std::string(NASC_SOURCE_DIR) + "/models/cifar_resnet18.json");
  return graph;
}

std::string text(const std::vector<nas::NeuralStep> &steps) {
  std::string joined;
  for (const nas::NeuralStep &step : steps)
    joined += step.toString() + ";";
  return joined;
}

/// The synthetic search's outcome of `candidate`: refused (a stand-in for the gate) when its
/// steps change more than 4 Convs, else measured with seconds = its FLOP × 1e-10.
search::Scored synthetic(const search::Candidate &candidate) {
  std::set<std::string> touched;
  for (const nas::NeuralStep &step : candidate.steps)
    touched.insert(step.node);
  if (touched.size() > 4)
    return {candidate.steps, search::Scored::Outcome::Refused, 0};
  return {candidate.steps, search::Scored::Outcome::Measured,
          nas::modelCost(candidate.graph).flops * 1e-10};
}

/// The lowest measured seconds of `history`.
double best(const std::vector<search::Scored> &history) {
  double seconds = INFINITY;
  for (const search::Scored &s : history)
    if (s.outcome == search::Scored::Outcome::Measured)
      seconds = std::min(seconds, s.seconds);
  return seconds;
}

/// `count` candidates with steps, candidate i drawn with candidateRng(seed, i) by `propose`
/// from the history so far, judged by `synthetic`.
template <typename Propose>
std::vector<search::Scored> syntheticSearch(uint64_t seed, size_t count, Propose propose) {
  std::vector<search::Scored> history;
  for (int64_t i = 0; history.size() < count; ++i) {
    std::mt19937_64 rng = search::candidateRng(seed, i);
    const search::Candidate candidate = propose(history, rng);
    if (!candidate.steps.empty())
      history.push_back(synthetic(candidate));
  }
  return history;
}

} // namespace

TEST_CASE("the regressor predicts a linear function between its grid points", "[evolution]") {
  // Each feature has 11 distinct values, fewer than XGBoost's 256 bins, so every split is
  // "x < v" at a training value v (or above the range): (x0 + h/4, x1 + h/4) follows the path
  // of the grid point (x0, x1) in every tree, and its error is at most the grid point's (< 0.1,
  // 2% of the range of 3·x0 − 2·x1) plus the function's change between the two, 3·h/4 − 2·h/4 =
  // h/4: under 0.125.
  const std::vector<std::vector<float>> rows = grid();
  std::vector<float> targets;
  for (const std::vector<float> &x : rows)
    targets.push_back(linear(x));
  const search::CostModel model(search::Objective::Regression, rows, targets);
  const std::vector<float> fitted = model.predict(rows);
  std::vector<std::vector<float>> heldOut;
  for (size_t r = 0; r < rows.size(); ++r) {
    CHECK(std::abs(fitted[r] - targets[r]) < 0.1f);
    heldOut.push_back({rows[r][0] + kH / 4, rows[r][1] + kH / 4});
  }
  const std::vector<float> predicted = model.predict(heldOut);
  REQUIRE(predicted.size() == heldOut.size());
  for (size_t r = 0; r < heldOut.size(); ++r) {
    INFO("x = (" << heldOut[r][0] << ", " << heldOut[r][1] << ")");
    CHECK(predicted[r] == fitted[r]);
    CHECK(std::abs(predicted[r] - linear(heldOut[r])) < 0.1f + kH / 4);
  }
}

TEST_CASE("the classifier separates a linearly separable set", "[evolution]") {
  // Label x0 + x1 > 1 on the grid, the points within 1.5·h of the line x0 + x1 = 1 left out.
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  for (const std::vector<float> &x : grid())
    if (std::abs(x[0] + x[1] - 1) > 1.5f * kH) {
      rows.push_back(x);
      labels.push_back(x[0] + x[1] > 1 ? 1.0f : 0.0f);
    }
  const search::CostModel model(search::Objective::Classification, rows, labels);
  const std::vector<float> p = model.predict(rows);
  for (size_t r = 0; r < rows.size(); ++r) {
    INFO("x = (" << rows[r][0] << ", " << rows[r][1] << "), p = " << p[r]);
    CHECK((p[r] > 0.5f) == (labels[r] == 1));
    CHECK(p[r] > 0);
    CHECK(p[r] < 1);
  }
  CHECK(model.predict({{0.05f, 0.05f}})[0] < 0.1f);
  CHECK(model.predict({{0.95f, 0.95f}})[0] > 0.9f);
}

TEST_CASE("the cost model refuses bad rows and reports XGBoost's errors", "[evolution]") {
  CHECK_THROWS_WITH(search::CostModel(search::Objective::Regression, {}, {}),
                    Contains("at least one row"));
  CHECK_THROWS_WITH(search::CostModel(search::Objective::Regression, {{1, 2}, {3}}, {0, 1}),
                    Contains("row 1 has 1 features, not 2"));
  const search::CostModel model(search::Objective::Regression, {{1, 2}, {3, 4}}, {0, 1});
  CHECK_THROWS_AS(model.predict({{1, 2, 3}}), Error);
  CHECK_THROWS_WITH(search::CostModel(search::Objective::Classification, {{1}, {2}}, {0, 2}),
                    Contains("XGBoost XGBoosterUpdateOneIter: ") && Contains("label"));
}

TEST_CASE("the features of group(2) on one Conv of CIFAR ResNet-18", "[evolution]") {
  // FLOP by hand (2 per multiply-accumulate, batch 1): the stem 3 -> 64 at 32x32; layer1's four
  // 64 -> 64 3x3 at 32x32; in each of layer2..4 (half the side, twice the channels) a stride-2
  // 3x3 conv1, three 3x3 at the new width and a stride-2 1x1 downsample; the 512 -> 10 Gemm.
  const double stem = 2.0 * 64 * 32 * 32 * 3 * 9, same = 2.0 * 64 * 32 * 32 * 64 * 9;
  const double strided = 2.0 * 128 * 16 * 16 * 64 * 9, down = 2.0 * 128 * 16 * 16 * 64;
  const double total = stem + 4 * same + 3 * (strided + 3 * same + down) + 2.0 * 512 * 10;
  REQUIRE(total == nas::modelCost(resnet18()).flops);
  // searchableConvs order: conv1, layer1.*, then per stage conv1, conv2, downsample, conv1, conv2.
  std::vector<double> flops{stem, same, same, same, same};
  for (int stage = 0; stage < 3; ++stage)
    flops.insert(flops.end(), {strided, same, down, same, same});
  REQUIRE(search::searchableConvs(resnet18()).size() == flops.size());

  constexpr size_t W = 15, stride = 1 + W;
  std::vector<float> expected((flops.size() + 1) * stride, 0.0f);
  for (size_t i = 0; i < flops.size(); ++i)
    expected[i * stride] = static_cast<float>(flops[i] / total);
  const size_t conv = 1; // layer1.0.conv1; group is the registry's first block: [count, log2 G]
  expected[conv * stride + 1] = 1;
  expected[conv * stride + 2] = 1;
  expected[flops.size() * stride + 0] = static_cast<float>(same / total);
  expected[flops.size() * stride + 1] = static_cast<float>(same / total);
  expected.back() = 1;

  const search::CandidateFeatures features(resnet18());
  const std::vector<float> row = features({{"layer1.0.conv1", "group", {2}}});
  REQUIRE(row.size() == expected.size());
  for (size_t k = 0; k < row.size(); ++k) {
    INFO("feature " << k);
    CHECK(row[k] == Approx(expected[k]).margin(1e-7));
  }
  CHECK_THROWS_WITH(features({{"fc", "group", {2}}}), Contains("not a searchable Conv"));
}

TEST_CASE("proposeCandidate is deterministic and proposes new candidates", "[evolution]") {
  const ir::Graph original = test::smallResnet("evolution_resnet");
  REQUIRE(search::searchableConvs(original).size() == 10);
  const std::vector<search::Scored> history =
      syntheticSearch(5, 40, [&](const std::vector<search::Scored> &, std::mt19937_64 &rng) {
        return search::sampleCandidate(original, rng);
      });
  std::set<std::string> known;
  size_t measured = 0;
  for (const search::Scored &s : history) {
    known.insert(text(s.steps));
    measured += s.outcome == search::Scored::Outcome::Measured ? 1 : 0;
  }
  search::EvolutionOptions options;
  options.warmup = 8;
  REQUIRE(measured >= options.warmup);
  options.epsilon = 0;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    std::mt19937_64 a = search::candidateRng(seed, 100), b = search::candidateRng(seed, 100);
    const search::Candidate first = search::proposeCandidate(original, history, a, options);
    const search::Candidate second = search::proposeCandidate(original, history, b, options);
    CHECK(text(first.steps) == text(second.steps));
    CHECK_FALSE(first.steps.empty());
    CHECK(known.count(text(first.steps)) == 0);
  }
  // Short of `warmup` measured candidates and of `gateWarmup` judged ones, a proposal is
  // sampleCandidate's draw.
  options.warmup = 1000;
  options.gateWarmup = 1000;
  std::mt19937_64 a = search::candidateRng(9, 0), b = search::candidateRng(9, 0);
  CHECK(text(search::proposeCandidate(original, history, a, options).steps) ==
        text(search::sampleCandidate(original, b).steps));
}

TEST_CASE("warm-up proposals ranked by the gate classifier are refused less often than draws",
          "[evolution]") {
  const ir::Graph original = test::smallResnet("evolution_resnet");
  const std::vector<search::Scored> history =
      syntheticSearch(5, 40, [&](const std::vector<search::Scored> &, std::mt19937_64 &rng) {
        return search::sampleCandidate(original, rng);
      });
  search::EvolutionOptions options;
  options.warmup = 1000;
  int rankedRefused = 0, drawnRefused = 0;
  for (uint64_t seed = 0; seed < 30; ++seed) {
    std::mt19937_64 a = search::candidateRng(seed, 100), b = a;
    const search::Candidate proposed = search::proposeCandidate(original, history, a, options);
    std::set<std::string> draws;
    for (size_t i = 0; i < options.draws; ++i) {
      const search::Candidate drawn = search::sampleCandidate(original, b);
      draws.insert(text(drawn.steps));
      if (i == 0 && !drawn.steps.empty())
        drawnRefused += synthetic(drawn).outcome == search::Scored::Outcome::Refused ? 1 : 0;
    }
    INFO("seed " << seed << ": " << text(proposed.steps));
    CHECK(draws.count(text(proposed.steps)) == 1);
    rankedRefused += synthetic(proposed).outcome == search::Scored::Outcome::Refused ? 1 : 0;
  }
  INFO("refused: ranked " << rankedRefused << ", first draws " << drawnRefused << " of 30");
  CHECK(rankedRefused * 2 < drawnRefused);
}

TEST_CASE("evolution beats random draws of the same count on a synthetic search", "[evolution]") {
  const ir::Graph original = test::smallResnet("evolution_resnet");
  for (uint64_t seed : {1, 2, 3}) {
    const auto random =
        syntheticSearch(seed, 80, [&](const std::vector<search::Scored> &, std::mt19937_64 &rng) {
          return search::sampleCandidate(original, rng);
        });
    const auto evolved = syntheticSearch(
        seed, 80, [&](const std::vector<search::Scored> &history, std::mt19937_64 &rng) {
          return search::proposeCandidate(original, history, rng);
        });
    INFO("seed " << seed << ": random " << best(random) << " s, evolution " << best(evolved)
                 << " s");
    CHECK(best(evolved) < best(random));
  }
}
