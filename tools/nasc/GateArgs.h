// The capacity gate's command-line options, shared by `nasc capacity` and
// `nasc mutate --check-capacity`.
#pragma once

#include "compiler/nas/CapacityGate.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace nasc::cli {

/// Exit status of a command whose model the capacity gate refuses.
inline constexpr int kRefused = 3;

/// The gate's policy, thresholds and measurement options (defaults: nas::kDefaultPolicy and the
/// defaults of nas::GateParams, nas::FisherOptions and nas::ShortTrainingOptions).
struct GateArgs {
  std::string policy = nas::policyName(nas::kDefaultPolicy);
  double theta = nas::GateParams{}.theta;
  std::optional<double> tolerance;
  double shareTolerance = nas::kSynflowShareTolerance; ///< nas::GateParams::synflowShareTolerance.
  double weightFloor = nas::kLayerWeightFloor;         ///< nas::GateParams::layerWeightFloor.
  int64_t batch = nas::FisherOptions{}.batch;
  uint64_t seed = 0;
  int seeds = nas::FisherOptions{}.seeds, steps = nas::ShortTrainingOptions{}.steps;
  int threads = nas::FisherOptions{}.threads;
  bool policyOnly = false;      ///< Measure only nas::proxiesOf(policy), not every proxy.
  bool noExpansionRule = false; ///< nas::GateParams::expansionRule off.
};

/// Which gate options a command takes besides --policy, --theta, --tolerance, --batch, --seeds
/// and --steps.
struct GateOptionSet {
  bool seed = false;                 ///< --seed (a command with its own sets GateArgs::seed).
  std::string threads = "--threads"; ///< The name of GateArgs::threads' option.
  bool policyOnly = true;            ///< --policy-only.
};

/// Adds the gate's options (`set`) to `cmd`.
void addGateOptions(CLI::App &cmd, GateArgs &args, const GateOptionSet &set);

/// The policy's thresholds: nas::GateParams with --theta, --share-tolerance, --weight-floor,
/// --no-expansion-rule, and --tolerance
/// replacing the selected policy's. Throws nasc::Error for --tolerance with a policy that has none.
nas::GateParams gateParams(const GateArgs &args, nas::Policy policy);

/// The measurement options of the gate's proxies (--batch, --seed, --seeds, --steps, --threads).
nas::CapacityOptions capacityOptions(const GateArgs &args);

/// nas::runCapacityGate on the two models (prepared for training, nas::loadForTraining) with
/// `args`: every proxy, or only the policy's with --policy-only. Throws nasc::Error for
/// --tolerance with a policy that has none, and every error of the gate.
nas::CapacityReport runGate(const GateArgs &args, const ir::Graph &original,
                            const ir::Graph &transformed);

} // namespace nasc::cli
