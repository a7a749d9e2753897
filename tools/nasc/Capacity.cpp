#include "compiler/nas/CapacityGate.h"
#include "compiler/nas/CapacityJson.h"
#include "ir/Error.h"
#include "tools/nasc/Commands.h"
#include "tools/nasc/GateArgs.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace nasc::cli {

namespace {

/// The proxies (original, new, and new / original, or new − original for the log-space and loss
/// proxies: synflow, measured as its natural log and shown as "ln synflow", jacob_cov and
/// train_loss), every policy's decision, and the selected one's reason.
void printTable(const nas::CapacityReport &report) {
  std::printf("%-12s %14s %14s %14s\n", "proxy", "original", "new", "new/orig | diff");
  for (const std::string &name : nas::capacityProxyNames()) {
    if (!report.original.proxies.count(name))
      continue;
    const double o = report.original.proxies.at(name), n = report.transformed.proxies.at(name);
    if (name == "synflow")
      std::printf("%-12s %14.6f %14.6f %+14.6f\n", "ln synflow", o, n, n - o);
    else if (name == "jacob_cov" || name == "train_loss")
      std::printf("%-12s %14.6e %14.6e %+14.6f\n", name.c_str(), o, n, n - o);
    else
      std::printf("%-12s %14.6e %14.6e %14.6f\n", name.c_str(), o, n, n / o);
  }
  std::printf("\n");
  for (const nas::Decision &d : report.decisions)
    std::printf("%-13s %s\n", nas::policyName(d.policy).c_str(), d.legal ? "legal" : "refused");
  std::printf("\n%s: %s: %s\n", nas::policyName(report.decision.policy).c_str(),
              report.decision.legal ? "legal" : "refused", report.decision.reason.c_str());
}

struct CapacityArgs : GateArgs {
  std::string original, transformed;
  bool json = false;
};

/// Runs the gate and prints its report; returns the exit status (0 legal, kRefused).
int capacity(const CapacityArgs &args) {
  const nas::CapacityReport report =
      runGate(args, nas::loadForTraining(args.original), nas::loadForTraining(args.transformed));
  if (args.json)
    std::cout << nas::capacityJson(report, 1) << "\n";
  else
    printTable(report);
  return report.decision.legal ? 0 : kRefused;
}

} // namespace

void addCapacityCommand(CLI::App &app, int &exitStatus) {
  auto args = std::make_shared<CapacityArgs>();
  CLI::App *cmd = app.add_subcommand(
      "capacity", "Capacity gate (docs/capacity.md): measures every zero-cost proxy, the "
                  "short-training loss, params and FLOPs of ORIGINAL and NEW (only what --policy "
                  "reads with --policy-only) and decides by --policy whether NEW keeps "
                  "ORIGINAL's capacity; exit 0 legal, 3 refused");
  cmd->add_option("ORIGINAL", args->original, "The original model (.onnx or .json)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("NEW", args->transformed, "The transformed model (.onnx or .json)")
      ->required()
      ->check(CLI::ExistingFile);
  addGateOptions(*cmd, *args, {.seed = true});
  cmd->add_flag("--json", args->json,
                "Print {\"legal\": b, \"policy\": P, \"reason\": R, \"proxies\": {NAME: "
                "{\"original\": x, \"new\": y}}, \"decisions\": {POLICY: b}}; synflow's x and y "
                "are natural logs");
  cmd->callback([args, &exitStatus] { exitStatus = capacity(*args); });
}

} // namespace nasc::cli
