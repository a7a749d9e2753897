// The layerwise strategy (compiler/search/Layerwise.h) on a small residual network: its layer
// steps, worked out by hand from the registry's rules (docs/search.md, "Search space"), and its
// compositions of a hand-written history.
#include "compiler/search/Layerwise.h"
#include "test/support/SmallResnet.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

using namespace nasc;

namespace {

std::vector<std::string> texts(const std::vector<nas::NeuralStep> &steps) {
  std::vector<std::string> out;
  for (const nas::NeuralStep &step : steps)
    out.push_back(step.toString());
  return out;
}

/// A Measured single step of `seconds`.
search::Scored alone(const std::string &step, double seconds) {
  return {{nas::parseNeuralStep(step)}, search::Scored::Outcome::Measured, seconds};
}

} // namespace

TEST_CASE("layer steps: one per step a workload in one place offers, largest first, seq3 left "
          "out",
          "[layerwise]") {
  const ir::Graph original = test::smallResnet("layerwise_resnet");
  const search::Layerwise layerwise(original);
  // The workloads and places (what reads the Conv past its Relu) by total FLOP (multiply-adds),
  // ties in graph order: a1, b1 (16 -> 16, 3x3, 16x16, read by a Conv) 2 x 589824; a2, b2 (the
  // same, read by an Add) 2 x 589824; c2, d2 (32 -> 32, 3x3, 8x8, Add) 2 x 589824; d1 (the same,
  // Conv) 589824; c1 (16 -> 32, 3x3 stride 2) 294912; stem (4 -> 16, read by a1 and a's Add)
  // 147456; cd (16 -> 32, 1x1 stride 2) 32768.
  std::vector<std::string> firstWorkload;
  std::set<std::string> representatives;
  for (const search::LayerStep &s : layerwise.layerSteps()) {
    representatives.insert(s.step.node);
    if (s.members == std::vector<std::string>{"a1", "b1"})
      firstWorkload.push_back(s.step.toString());
  }
  std::set<std::vector<std::string>> groups;
  for (const search::LayerStep &s : layerwise.layerSteps())
    groups.insert(s.members);
  CHECK(groups == std::set<std::vector<std::string>>{
                      {"a1", "b1"}, {"a2", "b2"}, {"c2", "d2"}, {"d1"}, {"c1"}, {"stem"}, {"cd"}});
  CHECK(layerwise.layerSteps().front().step.node == "a1");
  CHECK(representatives == std::set<std::string>{"a1", "a2", "c2", "d1", "c1", "stem", "cd"});
  // C = K = 16 at 16x16: group G of 16's divisors short of 16; depthwise (C divides K);
  // bottleneck B of 16's divisors in 2..8; spatial_bottleneck 2, 4; seq1 pairs G1 < G2 of 1, 2,
  // 4, 8 (all divide C and K/2 = 8); seq2 u = 8 with G of 2..8 dividing 16 and 8; no seq3.
  CHECK(firstWorkload ==
        std::vector<std::string>{"a1:group(2)", "a1:group(4)", "a1:group(8)", "a1:depthwise",
                                 "a1:bottleneck(2)", "a1:bottleneck(4)", "a1:bottleneck(8)",
                                 "a1:spatial_bottleneck(2)", "a1:spatial_bottleneck(4)",
                                 "a1:seq1(1, 2)", "a1:seq1(1, 4)", "a1:seq1(1, 8)", "a1:seq1(2, 4)",
                                 "a1:seq1(2, 8)", "a1:seq1(4, 8)", "a1:seq2(8, 2)", "a1:seq2(8, 4)",
                                 "a1:seq2(8, 8)"});
  // Round-robin: each group's first step, largest group first, then each one's second.
  REQUIRE(layerwise.layerSteps().size() > 14);
  std::vector<std::string> firstRound, secondRound;
  for (size_t i = 0; i < 7; ++i) {
    firstRound.push_back(layerwise.layerSteps()[i].step.node);
    secondRound.push_back(layerwise.layerSteps()[i + 7].step.node);
  }
  CHECK(firstRound == std::vector<std::string>{"a1", "a2", "c2", "d1", "c1", "stem", "cd"});
  CHECK(secondRound == firstRound);
  CHECK(layerwise.layerSteps()[7].step.toString() == "a1:group(4)");
}

TEST_CASE("layerwise proposals: the layer steps alone, every period-th a composition",
          "[layerwise]") {
  const ir::Graph original = test::smallResnet("layerwise_resnet");
  const search::Layerwise layerwise(original, {4, 0.2, 16, {}});
  const auto &steps = layerwise.layerSteps();
  std::mt19937_64 rng(1);
  for (int64_t index : {0, 1, 2})
    CHECK(texts(layerwise.propose(index, {}, 1.0, rng).steps) ==
          std::vector<std::string>{steps[static_cast<size_t>(index)].step.toString()});
  const search::Candidate composed = layerwise.propose(3, {}, 1.0, rng);
  CHECK(composed.steps.empty());
  CHECK(composed.refusals.front() == "no layer step has passed the gate and run faster yet");
  CHECK(texts(layerwise.propose(4, {}, 1.0, rng).steps) ==
        std::vector<std::string>{steps[3].step.toString()});
}

TEST_CASE("a composition takes each workload's fastest step that passed alone on every Conv "
          "of it, and a repeated one is perturbed",
          "[layerwise]") {
  const ir::Graph original = test::smallResnet("layerwise_resnet");
  const search::Layerwise layerwise(original, {4, 0.2, 16, {}});
  std::vector<search::Scored> history = {
      alone("a1:group(2)", 0.8),
      alone("a1:group(4)", 0.7),
      alone("a1:depthwise", 1.2), // slower than the original's 1.0
      alone("c2:group(2)", 0.9),
      {{nas::parseNeuralStep("c2:group(4)")}, search::Scored::Outcome::Refused, 0},
  };
  std::mt19937_64 rng(1);
  const search::Candidate composed = layerwise.propose(3, history, 1.0, rng);
  // a1's workload is a1 and b1; c2's is c2 and d2 (read by Adds; d1, read by a Conv, is
  // another).
  const std::vector<std::string> greedy = {"a1:group(4)", "b1:group(4)", "c2:group(2)",
                                           "d2:group(2)"};
  CHECK(texts(composed.steps) == greedy);

  history.push_back({composed.steps, search::Scored::Outcome::Measured, 0.6});
  std::set<std::vector<std::string>> seen;
  for (const search::Scored &s : history)
    seen.insert(texts(s.steps));
  const std::set<std::string> allowed = {"a1:group(4)", "b1:group(4)", "a1:group(2)",
                                         "b1:group(2)", "c2:group(2)", "d2:group(2)"};
  for (int64_t index : {7, 11, 15}) {
    std::mt19937_64 draw = search::candidateRng(5, index);
    const search::Candidate perturbed = layerwise.propose(index, history, 1.0, draw);
    REQUIRE_FALSE(perturbed.steps.empty());
    CHECK(seen.count(texts(perturbed.steps)) == 0);
    for (const std::string &step : texts(perturbed.steps))
      CHECK(allowed.count(step) == 1);
    // A workload takes one step on all of its Convs: a1's choice is b1's.
    std::string a, b;
    for (const nas::NeuralStep &step : perturbed.steps) {
      if (step.node == "a1")
        a = step.transform + std::to_string(step.args.at(0));
      if (step.node == "b1")
        b = step.transform + std::to_string(step.args.at(0));
    }
    CHECK(a == b);
  }
}

TEST_CASE("with a weight floor a composition's smaller workloads fall back to a step that keeps "
          "every layer's weights above it, or to none",
          "[layerwise]") {
  const ir::Graph original = test::smallResnet("layerwise_resnet");
  search::LayerwiseOptions options{4, 0.2, 16, {}};
  options.weightFloor = 0.25;
  const search::Layerwise layerwise(original, options);
  std::mt19937_64 rng(1);
  // a1, b1 (16 -> 16, the largest workload) bottleneck(4): 4 output channels, 1/4 of their
  // weights, and a2, b2 read 4 of 16 channels, 16 x 4 x 9 = 1/4 of theirs. group(4) of a2, b2
  // on top leaves 16 x 1 x 9 = 1/16 of 16 x 16 x 9, group(2) 1/8: both below 1/4, so a2's
  // workload takes none.
  const std::vector<search::Scored> bottleneck4 = {
      alone("a1:bottleneck(4)", 0.6), alone("a1:group(2)", 0.8), alone("a2:group(4)", 0.65),
      alone("a2:group(2)", 0.7)};
  CHECK(texts(layerwise.propose(3, bottleneck4, 1.0, rng).steps) ==
        std::vector<std::string>{"a1:bottleneck(4)", "b1:bottleneck(4)"});
  // bottleneck(2) leaves a2, b2 1/2: group(4) on top 1/8 (below), group(2) 1/4 (kept).
  const std::vector<search::Scored> bottleneck2 = {
      alone("a1:bottleneck(2)", 0.6), alone("a2:group(4)", 0.65), alone("a2:group(2)", 0.7)};
  CHECK(texts(layerwise.propose(3, bottleneck2, 1.0, rng).steps) ==
        std::vector<std::string>{"a1:bottleneck(2)", "a2:group(2)", "b1:bottleneck(2)",
                                 "b2:group(2)"});
  // Without the floor the fastest steps stack.
  const search::Layerwise unbounded(original, {4, 0.2, 16, {}});
  CHECK(texts(unbounded.propose(3, bottleneck4, 1.0, rng).steps) ==
        std::vector<std::string>{"a1:bottleneck(4)", "a2:group(4)", "b1:bottleneck(4)",
                                 "b2:group(4)"});
}

TEST_CASE("the layer steps of chosen transformations only", "[layerwise]") {
  const ir::Graph original = test::smallResnet("layerwise_resnet");
  search::LayerwiseOptions options;
  options.transforms = {"group", "bottleneck"};
  const search::Layerwise layerwise(original, options);
  std::vector<std::string> firstWorkload;
  for (const search::LayerStep &s : layerwise.layerSteps()) {
    CHECK((s.step.transform == "group" || s.step.transform == "bottleneck"));
    if (s.step.node == "a1")
      firstWorkload.push_back(s.step.toString());
  }
  CHECK(firstWorkload == std::vector<std::string>{"a1:group(2)", "a1:group(4)", "a1:group(8)",
                                                  "a1:bottleneck(2)", "a1:bottleneck(4)",
                                                  "a1:bottleneck(8)"});
  // The stem (4 -> 16) keeps group(2) and bottleneck(2, 4, 8); cd (1x1, 16 -> 32) group(2, 4, 8)
  // and bottleneck(2, 4, 8): every workload keeps some.
  std::set<std::string> representatives;
  for (const search::LayerStep &s : layerwise.layerSteps())
    representatives.insert(s.step.node);
  CHECK(representatives == std::set<std::string>{"a1", "a2", "c2", "d1", "c1", "stem", "cd"});
}
