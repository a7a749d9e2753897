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
  int64_t batch = nas::FisherOptions{}.batch;
  uint64_t seed = 0;
  int seeds = nas::FisherOptions{}.seeds, steps = nas::ShortTrainingOptions{}.steps;
  int threads = nas::FisherOptions{}.threads;
  bool policyOnly = false; ///< Measure only nas::proxiesOf(policy), not every proxy.
};

/// Adds --policy, --theta, --tolerance, --batch, --seeds, --steps, --threads, --policy-only and, with
/// `withSeed`, --seed (a command with its own --seed sets GateArgs::seed itself).
void addGateOptions(CLI::App &cmd, GateArgs &args, bool withSeed);

/// nas::runCapacityGate on the two models (prepared for training, nas::loadForTraining) with
/// `args`: every proxy, or only the policy's with --policy-only. Throws nasc::Error for
/// --tolerance with a policy that has none, and every error of the gate.
nas::CapacityReport runGate(const GateArgs &args, const ir::Graph &original,
                            const ir::Graph &transformed);

} // namespace nasc::cli
