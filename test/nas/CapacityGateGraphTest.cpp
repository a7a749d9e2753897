// The capacity gate on in-memory graphs (nas::CapacityGate): the original
// measured once, only the proxies a policy reads, and the errors of a
// mismatched candidate or proxy list.
#include "compiler/nas/CapacityGate.h"
#include "ir/Error.h"
#include "test/support/SmallCnn.h"

#include <catch2/catch.hpp>

namespace {

using namespace nasc;
using nas::Policy;

/// test::writeSmallCnn "capacity_graph_<name>" with both convs `width` wide,
/// loaded for training.
ir::Graph smallCnn(const std::string &name, int width, int channels = 1) {
  return nas::loadForTraining(
      test::writeSmallCnn("capacity_graph_" + name, {width, width, channels, 16, 10}));
}

/// One seed, a small batch and few SGD steps.
nas::CapacityOptions fastOptions() {
  nas::CapacityOptions options;
  options.fisher.batch = 16;
  options.fisher.seeds = 1;
  options.training.steps = 3;
  return options;
}

std::vector<std::string> keys(const std::map<std::string, double> &map) {
  std::vector<std::string> names;
  for (const auto &entry : map)
    names.push_back(entry.first);
  return names;
}

} // namespace

TEST_CASE("proxiesOf: the proxies each policy's decision reads", "[nas][capacity][gate]") {
  using Names = std::vector<std::string>;
  CHECK(nas::proxiesOf(Policy::Paper) == Names{"fisher"});
  CHECK(nas::proxiesOf(Policy::FisherLayer) == Names{"fisher"});
  CHECK(nas::proxiesOf(Policy::FisherSeeds) == Names{"fisher"});
  CHECK(nas::proxiesOf(Policy::Synflow) == Names{"synflow"});
  CHECK(nas::proxiesOf(Policy::JacobCov) == Names{"jacob_cov"});
  CHECK(nas::proxiesOf(Policy::TrainLoss) == Names{"train_loss"});
  CHECK(nas::proxiesOf(Policy::Vote) == Names{"synflow", "jacob_cov", "train_loss"});
}

TEST_CASE("CapacityGate measures the original once and only the policy's proxies",
          "[nas][capacity][gate]") {
  nas::GateParams params;
  params.tolerances[Policy::Synflow] = 1.0;
  const nas::CapacityGate gate(smallCnn("wide", 16), Policy::Synflow, fastOptions(), params,
                               nas::proxiesOf(Policy::Synflow));
  CHECK(keys(gate.original().proxies) == std::vector<std::string>{"synflow"});
  CHECK(gate.original().fisherLayers.empty());

  const nas::CapacityReport same = gate.judge(smallCnn("wide", 16));
  CHECK(same.decision.legal);
  CHECK(same.transformed.proxies.at("synflow") == same.original.proxies.at("synflow"));
  REQUIRE(same.decisions.size() == 1);
  CHECK(same.decisions[0].policy == Policy::Synflow);

  // Width 16 -> 1 divides every Conv's synflow by far more than e (tolerance
  // 1).
  const nas::CapacityReport narrow = gate.judge(smallCnn("narrow", 1));
  CHECK_FALSE(narrow.decision.legal);
  CHECK(keys(narrow.transformed.proxies) == std::vector<std::string>{"synflow"});
  CHECK(narrow.original.proxies == gate.original().proxies);
}

TEST_CASE("CapacityGate: the vote measures its three proxies and decides its "
          "members too",
          "[nas][capacity][gate]") {
  const nas::CapacityGate gate(smallCnn("wide", 16), Policy::Vote, fastOptions(), {},
                               nas::proxiesOf(Policy::Vote));
  const nas::CapacityReport report = gate.judge(smallCnn("wide", 16));
  CHECK(keys(report.transformed.proxies) ==
        std::vector<std::string>{"jacob_cov", "synflow", "train_loss"});
  std::vector<Policy> decided;
  for (const nas::Decision &d : report.decisions)
    decided.push_back(d.policy);
  CHECK(decided ==
        std::vector<Policy>{Policy::Synflow, Policy::JacobCov, Policy::TrainLoss, Policy::Vote});
  CHECK(report.decision.policy == Policy::Vote);
  CHECK(report.decision.legal);
}

TEST_CASE("CapacityGate refuses a candidate of another task and a proxy list "
          "without the "
          "policy's",
          "[nas][capacity][gate]") {
  const ir::Graph wide = smallCnn("wide", 16), rgb = smallCnn("rgb", 16, 3);
  const nas::CapacityGate gate(wide, Policy::Synflow, fastOptions(), {},
                               nas::proxiesOf(Policy::Synflow));
  CHECK_THROWS_WITH(gate.judge(rgb), Catch::Contains(wide.source) && Catch::Contains(rgb.source) &&
                                         Catch::Contains("different graph inputs"));
  CHECK_THROWS_WITH(nas::CapacityGate(wide, Policy::Paper, fastOptions(), {}, {"synflow"}),
                    Catch::Contains("'paper'") && Catch::Contains("'fisher'"));
  CHECK_THROWS_WITH(nas::measureCapacity(wide, fastOptions(), {"accuracy"}),
                    Catch::Contains("unknown proxy 'accuracy'"));
}
