#include "compiler/nas/CapacityJson.h"
#include "compiler/nas/ConvLayer.h"
#include "compiler/nas/GroupScop.h"
#include "compiler/nas/InitWeights.h"
#include "compiler/nas/ModelCost.h"
#include "compiler/nas/NeuralStep.h"
#include "ir/export/OnnxExporter.h"
#include "ir/import/ModelLoader.h"
#include "ir/passes/Passes.h"
#include "tools/nasc/Commands.h"
#include "tools/nasc/GateArgs.h"

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

namespace nasc::cli {

namespace {

struct MutateArgs : GateArgs {
  std::string model, output, weights = "init";
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

/// The group count a group or depthwise step brings to a Conv with group 1 (0 for other steps and
/// grouped Convs, which groupRewrite does not take).
int64_t groupFactor(const ir::Graph &graph, const nas::NeuralStep &step) {
  if (step.transform != "group" && step.transform != "depthwise")
    return 0;
  const nas::ConvLayer layer = nas::convLayer(graph, step.node, step.toString());
  if (layer.group != 1)
    return 0;
  return step.transform == "group" ? step.args.at(0) : layer.C;
}

/// Prints the reduction statement of `step`'s Conv before and after, as GroupRewrite computes it.
void showIsl(const ir::Graph &graph, const nas::NeuralStep &step) {
  const int64_t G = groupFactor(graph, step);
  if (G == 0) {
    std::cout << "  (isl form shown for group and depthwise of a Conv with group 1)\n";
    return;
  }
  poly::IslContext isl;
  const nas::GroupRewrite rewrite = nas::groupRewrite(isl.get(), graph, step.node, G);
  std::cout << "  domain before: " << rewrite.dense.domain << "\n  domain after:  "
            << rewrite.grouped.domain << "\n  reads before:  " << rewrite.dense.reads
            << "\n  reads after:   " << rewrite.grouped.reads
            << "\n  (every access checked inside its tensor)\n";
}

/// Runs the capacity gate on MODEL and the written model, prints its decision and records it (with
/// the steps) in the written model's metadata as nasc.capacity. Returns the exit status.
int checkCapacity(const MutateArgs &args, const ir::Graph &graph,
                  std::map<std::string, std::string> metadata) {
  const nas::CapacityReport report = runGate(args, args.model, args.output);
  metadata["nasc.capacity"] = nas::capacityJson(report, -1);
  ir::exportOnnx(graph, args.output, metadata);
  std::printf("capacity (%s): %s: %s\n", args.policy.c_str(),
              report.decision.legal ? "legal" : "refused", report.decision.reason.c_str());
  return report.decision.legal ? 0 : kRefused;
}

int mutate(const MutateArgs &args) {
  std::vector<nas::NeuralStep> steps;
  for (const std::string &text : args.steps)
    steps.push_back(nas::parseNeuralStep(text));
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
  return args.checkCapacity ? checkCapacity(args, graph, metadata) : 0;
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
                  "NODE:group(G) | NODE:depthwise | NODE:bottleneck(B) | NODE:seq1(G1,...,Gp) | "
                  "NODE:seq2(u,G), applied in order (repeat the option; docs/transformations.md)")
      ->required();
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
                "Print the convolution's iteration domain and access relations before and after "
                "each group / depthwise step, as isl rewrites them");
  cmd->add_flag("--check-capacity", args->checkCapacity,
                "Run the capacity gate (nasc capacity MODEL NEW, with --policy, --theta, "
                "--tolerance, --batch, --seeds, --steps) and record its decision in the model's metadata (nasc.capacity); exit 3 when "
                "refused (the model is still written)");
  addGateOptions(*cmd, *args, false);
  cmd->callback([args, &exitStatus] { exitStatus = mutate(*args); });
}

} // namespace nasc::cli
