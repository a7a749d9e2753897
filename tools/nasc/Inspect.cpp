#include "compiler/Pipeline.h"
#include "compiler/nas/ModelCost.h"
#include "ir/Error.h"
#include "ir/import/ModelLoader.h"
#include "ir/passes/Passes.h"
#include "tools/nasc/Commands.h"
#include "tools/nasc/ModelArgs.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

namespace nasc::cli {

namespace {

struct InspectArgs : ModelArgs {
  std::string node, stage = "graph", after;
  bool explain = false;
};

/// The pass whose dump `inspect --stage` prints for the polyhedral stages.
std::string stagePass(const std::string &stage) {
  if (stage == "kernel")
    return "forward-padded";
  return stage == "isl" ? "scop" : "ast";
}

/// Per kernel, the steps its default trace tried and did not apply, with why.
void printRefusedSteps(const compiler::ModelSchedule &schedule) {
  for (const compiler::KernelSchedule &trace : schedule.kernels) {
    std::cout << "\n// " << trace.node << ": " << trace.refused.size()
              << " default step(s) tried and not applied\n";
    for (const compiler::RefusedStep &refused : trace.refused)
      std::cout << "//   " << refused.step.toString() << ": " << refused.reason << "\n";
  }
}

/// The schedule entries of the selected node (all when none is), those of neural steps that
/// replaced it first, as a schedule file (with `explain`, followed by the default steps that
/// were not applied).
void printSchedule(const compiler::PolyhedralModel &model, const InspectArgs &args) {
  compiler::ModelSchedule selectedTraces;
  for (const compiler::KernelSchedule &replaced : model.replaced)
    if (args.node.empty() || replaced.node == args.node)
      selectedTraces.kernels.push_back(replaced);
  for (size_t c = 0; c < model.program.calls.size(); ++c)
    if (args.node.empty() || compiler::implementsNode(model.program.calls[c], args.node))
      selectedTraces.kernels.push_back(model.kernels[c].trace);
  if (selectedTraces.kernels.empty())
    throw Error("no kernel implements node '" + args.node + "'");
  std::cout << compiler::scheduleToJson(selectedTraces);
  if (args.explain)
    printRefusedSteps(selectedTraces);
}

/// FLOP and trainable parameters per Conv / Gemm / BatchNormalization node and in total, of the
/// graph as imported (BN not folded), as nas::modelCost counts them.
void printCost(const InspectArgs &args) {
  ir::Graph graph = ir::loadModelRaw(args.model);
  ir::prepareForTraining(graph);
  const nas::ModelCost cost = nas::modelCost(graph);
  std::printf("%-40s %-20s %14s %12s\n", "node", "op", "MFLOP", "parameters");
  for (const nas::NodeCost &node : cost.nodes)
    std::printf("%-40s %-20s %14.6f %12lld\n", node.node.c_str(), node.op.c_str(),
                node.flops * 1e-6, static_cast<long long>(node.params));
  std::printf("%-61s %14.6f MFLOP %12lld parameters\n", "total", cost.flops * 1e-6,
              static_cast<long long>(cost.params));
}

void inspect(const InspectArgs &args) {
  if (!args.after.empty()) {
    const compiler::PolyhedralModel model = lowerModel(args, args.target(), args.after);
    compiler::printAfterPass(std::cout, model, args.after, args.node);
    return;
  }
  if (args.stage == "graph") {
    std::cout << ir::loadModel(args.model).toString();
    return;
  }
  if (args.stage == "cost")
    return printCost(args);
  compiler::CompileOptions options;
  options.target = args.target();
  options.jobs = args.jobs;
  if (args.stage == "target") {
    std::cout << codegen::describeTarget(options.target);
    return;
  }
  compiler::PolyhedralModel model = lowerModel(args, options.target);
  if (args.stage == "llvm")
    std::cout << compiler::generateCode(model, options).llvmIr();
  else if (args.stage == "asm")
    std::cout << compiler::generateCode(model, options).assembly();
  else if (args.stage == "schedule")
    printSchedule(model, args);
  else
    compiler::printAfterPass(std::cout, model, stagePass(args.stage), args.node);
}

} // namespace

void addInspectCommand(CLI::App &app) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App *cmd = app.add_subcommand("inspect", "Print MODEL's IR at one compilation stage");
  addModelOptions(*cmd, *args);
  cmd->add_option("--node", args->node,
                  "Only the kernel implementing this graph node (or kernel name)");
  cmd->add_flag("--explain", args->explain,
                "With --stage schedule: after the schedule, list per kernel the steps its default "
                "trace tried and did not apply, each with the refusal (the output is then no "
                "longer a schedule file)");
  CLI::Option *stage =
      cmd->add_option(
             "--stage", args->stage,
             "graph: imported graph after passes; cost: FLOP (2 per multiply-accumulate) "
             "and trainable parameters per Conv, Gemm and BN node and in total; kernel: loop-nest "
             "Kernels; schedule: the "
             "trace of schedule primitives of each kernel, as a --schedule file; isl: Scop "
             "domains, accesses, schedule tree; ast: isl AST; llvm: optimized LLVM IR; asm: the "
             "target's assembly; target: triple, CPU, vector unit and the CPU features a "
             "compiled library checks when it is loaded")
          ->check(CLI::IsMember(
              {"graph", "cost", "kernel", "schedule", "isl", "ast", "llvm", "asm", "target"}))
          ->capture_default_str();
  std::string passes;
  std::vector<std::string> names;
  for (const compiler::PipelinePass &pass : compiler::pipelinePasses()) {
    passes += "; " + pass.name + ": " + pass.summary;
    names.push_back(pass.name);
  }
  cmd->add_option("--after", args->after,
                  "Print the model as the compiler's pass PASS left it (the passes run up to "
                  "it, in this order" +
                      passes + ")")
      ->check(CLI::IsMember(names))
      ->excludes(stage);
  addTargetOptions(*cmd, *args, true);
  cmd->callback([args] { inspect(*args); });
}

} // namespace nasc::cli
