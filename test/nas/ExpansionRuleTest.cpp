// The capacity gate's spatial-expansion rule (nas::expansionRefusal, docs/capacity.md "Spatial
// expansions") on test::smallResnet transformed by spatial_bottleneck: which expansions a
// stride-1 3x3 Conv re-mixes, and which reach an Add, a strided Conv or exceed x2.
#include "compiler/nas/ExpansionRule.h"
#include "compiler/nas/CapacityGate.h"
#include "compiler/nas/NeuralStep.h"
#include "test/support/SmallResnet.h"

#include <catch2/catch.hpp>

namespace {

using namespace nasc;

/// smallResnet with `steps` applied.
ir::Graph transformed(const std::vector<std::string> &steps) {
  std::vector<nas::NeuralStep> parsed;
  for (const std::string &step : steps)
    parsed.push_back(nas::parseNeuralStep(step));
  return nas::applyNeuralSteps(test::smallResnet("expansion_rule"), parsed);
}

/// expansionRefusal of smallResnet with `steps` against the original (no Resize).
std::optional<std::string> refusal(const std::vector<std::string> &steps) {
  return nas::expansionRefusal(nas::resizeNodes(test::smallResnet("expansion_rule_original")),
                               transformed(steps));
}

bool mentions(const std::optional<std::string> &why, const std::string &text) {
  return why && why->find(text) != std::string::npos;
}

} // namespace

TEST_CASE("an x2 expansion read by a stride-1 3x3 Conv is admitted", "[nas][capacity][expansion]") {
  // a1 -> Relu -> Resize -> a2 (3x3, stride 1); c1 (stride 2: 16x16 -> 8x8, now 4x4) -> Relu ->
  // Resize -> c2 (3x3, stride 1).
  CHECK_FALSE(refusal({}));
  CHECK_FALSE(refusal({"a1:spatial_bottleneck(2)"}));
  CHECK_FALSE(refusal({"a1:spatial_bottleneck(2)", "c1:spatial_bottleneck(2)"}));
}

TEST_CASE("an expansion by more than x2 is refused", "[nas][capacity][expansion]") {
  const std::optional<std::string> why = refusal({"a1:spatial_bottleneck(4)"});
  CHECK(mentions(why, "(x4)"));
  CHECK(mentions(why, "more than x2"));
}

TEST_CASE("an expansion read by an Add, a strided Conv or beside a shortcut is refused",
          "[nas][capacity][expansion]") {
  // a2's expansion is read by the block's Add.
  CHECK(mentions(refusal({"a2:spatial_bottleneck(2)"}), "(Add)"));
  // The stem's output feeds a1 and, through the identity shortcut, block a's Add.
  CHECK(mentions(refusal({"stem:spatial_bottleneck(2)"}), "(Add)"));
  // The downsample cd's expansion is read by block c's Add.
  CHECK(mentions(refusal({"cd:spatial_bottleneck(2)"}), "(Add)"));
  // b1's expansion read by b2, which is itself strided now (and b2's expansion by the Add).
  const std::optional<std::string> both =
      refusal({"b1:spatial_bottleneck(2)", "b2:spatial_bottleneck(2)"});
  CHECK(mentions(both, "not a stride-1 Conv"));
}

TEST_CASE("expansions the original already has are not judged", "[nas][capacity][expansion]") {
  const ir::Graph once = transformed({"a1:spatial_bottleneck(4)"});
  CHECK_FALSE(nas::expansionRefusal(nas::resizeNodes(once), once));
}

TEST_CASE("the gate refuses by the rule under every policy, and not without it",
          "[nas][capacity][expansion][gate]") {
  nas::CapacityOptions options;
  options.fisher.batch = 4;
  options.fisher.seeds = 1;
  const nas::CapacityGate gate(test::smallResnet("expansion_gate"), nas::Policy::Synflow, options,
                               {}, nas::proxiesOf(nas::Policy::Synflow));
  const ir::Graph candidate = transformed({"a1:spatial_bottleneck(4)"});

  nas::GateParams without;
  without.expansionRule = false;
  const nas::CapacityReport policyOnly = gate.judge(candidate, without);
  REQUIRE(policyOnly.decision.legal); // synflow barely sees the expansion (tolerance 6.5)

  const nas::CapacityReport report = gate.judge(candidate);
  CHECK_FALSE(report.decision.legal);
  CHECK(report.decision.reason.rfind("spatial expansion", 0) == 0);
  CHECK(report.decision.reason.find(policyOnly.decision.reason) != std::string::npos);
  for (const nas::Decision &d : report.decisions)
    CHECK_FALSE(d.legal);
  CHECK(report.transformed.proxies == policyOnly.transformed.proxies);
}
