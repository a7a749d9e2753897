#include "compiler/nas/CapacityJson.h"
#include "compiler/nas/InitWeights.h"
#include "compiler/nas/ModelCost.h"
#include "compiler/nas/NeuralRegistry.h"
#include "compiler/nas/NeuralStep.h"
#include "compiler/nas/NeuralTrace.h"
#include "ir/export/OnnxExporter.h"
#include "ir/import/ModelLoader.h"
#include "ir/passes/Passes.h"
#include "tools/nasc/Commands.h"
#include "tools/nasc/GateArgs.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

namespace nasc::cli {

namespace {

struct MutateArgs : GateArgs {
  std::string model, output, weights = "init", schedule, scheduleOut;
  std::vector<std::string> steps;
  bool showIsl = false, checkCapacity = false;
};

void printCost(const char *label, const nas::ModelCost &cost) {
  std::printf("%-10s %10.4f MFLOP  %10lld parameters\n", label, cost.flops * 1e-6,
              static_cast<long long>(cost.params));
}

/// "a; b; c": the steps as recorded in the model's metadata (nasc.transformations).
std::string joinSteps(const std::vector<nas::NeuralStep> &steps) {
  std::string text;
  for (const nas::NeuralStep &step : steps)
    text += (text.empty() ? "" : "; ") + step.toString();
  return text;
}

/// "group, depthwise, ...", or with `usage` "NODE:group(G) | NODE:depthwise | ...": the
/// transformations of the registry (compiler/nas/NeuralRegistry.h), in its order.
std::string transformList(bool usage) {
  std::string list;
  for (const nas::NeuralTransform &t : nas::neuralTransforms())
    list += (list.empty() ? "" : usage ? " | " : ", ") + (usage ? "NODE:" + t.usage() : t.name);
  return list;
}

/// Prints the statements that `step` rewrites or adds, before and after, as its isl form
/// (nas::neuralIslForm) computes them.
void showIsl(const ir::Graph &graph, const nas::NeuralStep &step) {
  poly::IslContext isl;
  const std::vector<nas::ScopRewrite> rewrites = nas::neuralIslForm(isl.get(), graph, step);
  if (rewrites.empty()) {
    std::cout << "  (isl form shown for " << transformList(false) << " of a Conv with group 1)\n";
    return;
  }
  for (const nas::ScopRewrite &rewrite : rewrites) {
    const bool added = rewrite.before.domain.is_empty();
    auto before = [&](const auto &relation) {
      std::ostringstream text;
      text << relation;
      return added ? std::string("(none: a new statement)") : text.str();
    };
    std::cout << "  " << rewrite.label << ":\n    domain before: " << before(rewrite.before.domain)
              << "\n    domain after:  " << rewrite.after.domain
              << "\n    reads before:  " << before(rewrite.before.reads)
              << "\n    reads after:   " << rewrite.after.reads
              << "\n    writes before: " << before(rewrite.before.writes)
              << "\n    writes after:  " << rewrite.after.writes << "\n";
  }
  std::cout << "  (every access checked inside its tensor)\n";
}

/// The neural steps of the schedule file args.schedule (each entry's, in file order; schedule
/// steps do not change the architecture and are skipped), then those of --apply.
std::vector<nas::NeuralStep> neuralSteps(const MutateArgs &args) {
  std::vector<nas::NeuralStep> steps;
  if (!args.schedule.empty())
    for (const compiler::KernelSchedule &trace : compiler::readScheduleFile(args.schedule).kernels)
      for (const compiler::ScheduleStep &step : trace.steps)
        if (nas::isNeuralStep(step))
          steps.push_back(nas::toNeuralStep(trace.node, step));
  for (const std::string &text : args.steps)
    steps.push_back(nas::parseNeuralStep(text));
  if (steps.empty())
    throw Error("mutate: no neural step given (--apply NODE:transform(args) or --schedule FILE)");
  return steps;
}

/// Writes `steps` as a schedule file (docs/schedules.md): one entry per node, in the order of
/// its first step, with `capacity` (the gate's JSON record, or "") on the last step.
void writeSchedule(const std::string &path, const std::vector<nas::NeuralStep> &steps,
                   const std::string &capacity) {
  std::ofstream out(path);
  out << compiler::scheduleToJson(nas::neuralSchedule(steps, path, capacity));
  if (!out)
    throw Error(path + ": cannot write the schedule file");
  std::printf("wrote %s\n", path.c_str());
}

/// Runs the capacity gate on MODEL and the new `graph` in memory, prints its decision and records
/// it (with the steps) in the written model's metadata as nasc.capacity. Returns the report's JSON
/// and sets `status` to the exit status.
std::string checkCapacity(const MutateArgs &args, const ir::Graph &graph,
                          std::map<std::string, std::string> metadata, int &status) {
  ir::Graph candidate = graph;
  candidate.source = args.output;
  const nas::CapacityReport report = runGate(args, nas::loadForTraining(args.model), candidate);
  metadata["nasc.capacity"] = nas::capacityJson(report, -1);
  ir::exportOnnx(graph, args.output, metadata);
  std::printf("capacity (%s): %s: %s\n", args.policy.c_str(),
              report.decision.legal ? "legal" : "refused", report.decision.reason.c_str());
  status = report.decision.legal ? 0 : kRefused;
  return metadata["nasc.capacity"];
}

int mutate(const MutateArgs &args) {
  const std::vector<nas::NeuralStep> steps = neuralSteps(args);
  ir::Graph graph = ir::loadModelRaw(args.model);
  ir::prepareForTraining(graph);
  printCost("original", nas::modelCost(graph));
  for (const nas::NeuralStep &step : steps) {
    if (args.showIsl)
      showIsl(graph, step);
    graph = nas::applyNeuralStep(graph, step);
    printCost(step.toString().c_str(), nas::modelCost(graph));
  }
  if (args.weights == "init")
    nas::initWeights(graph, args.seed);
  const std::map<std::string, std::string> metadata{{"nasc.source", args.model},
                                                    {"nasc.transformations", joinSteps(steps)}};
  ir::exportOnnx(graph, args.output, metadata);
  std::printf("wrote %s\n", args.output.c_str());
  int status = 0;
  const std::string capacity =
      args.checkCapacity ? checkCapacity(args, graph, metadata, status) : "";
  if (!args.scheduleOut.empty())
    writeSchedule(args.scheduleOut, steps, capacity);
  return status;
}

} // namespace

void addMutateCommand(CLI::App &app, int &exitStatus) {
  auto args = std::make_shared<MutateArgs>();
  CLI::App *cmd = app.add_subcommand(
      "mutate", "Apply neural transformations to MODEL's convolutions (docs/transformations.md) "
                "and write the new architecture as an ONNX model to retrain");
  cmd->add_option("MODEL", args->model, "Model file (.onnx or .json)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--apply", args->steps,
                  transformList(true) +
                      ", applied in order (repeat the option; docs/transformations.md)");
  cmd->add_option("--schedule", args->schedule,
                  "Schedule file whose neural steps (docs/schedules.md) apply first, entry by "
                  "entry; its schedule steps are ignored (they do not change the architecture)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--schedule-out", args->scheduleOut,
                  "Also write the steps as a schedule file (one entry per node) that `nasc "
                  "compile MODEL --schedule FILE` replays on MODEL; with --check-capacity the "
                  "gate's record is on the last step");
  cmd->add_option("-o,--output", args->output, "ONNX model to write (opset 13)")->required();
  cmd->add_option("--weights", args->weights,
                  "init: fresh He initialisation of every weight (seeded by --seed); slice: keep "
                  "the original weights of the channels that remain")
      ->check(CLI::IsMember({"init", "slice"}))
      ->capture_default_str();
  cmd->add_option("--seed", args->seed,
                  "Seed of the He initialisation (and of the gate's with --check-capacity)")
      ->capture_default_str();
  cmd->add_flag("--show-isl", args->showIsl,
                "Print, for each step (" + transformList(false) +
                    ") of a Conv with group 1, the iteration domains and access relations of the "
                    "statements it rewrites or adds, before and after, as isl rewrites them");
  cmd->add_flag("--check-capacity", args->checkCapacity,
                "Run the capacity gate (nasc capacity MODEL NEW, with --policy, --theta, "
                "--tolerance, --batch, --seeds, --steps) and record its decision in the model's "
                "metadata (nasc.capacity); exit 3 when "
                "refused (the model is still written)");
  addGateOptions(*cmd, *args, {});
  cmd->callback([args, &exitStatus] { exitStatus = mutate(*args); });
}

} // namespace nasc::cli
