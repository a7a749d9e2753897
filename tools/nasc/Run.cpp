#include "compiler/CompiledModel.h"
#include "ir/Npy.h"
#include "tools/nasc/Commands.h"
#include "tools/nasc/ModelArgs.h"
#include "tools/nasc/TensorArgs.h"

#include <iostream>
#include <memory>

namespace nasc::cli {

namespace {

struct RunArgs : ModelArgs {
  std::vector<std::string> inputs, outputs;
  int threads = 1;
};

void run(const RunArgs &args) {
  compiler::CompileOptions options;
  options.target = args.target();
  options.jobs = args.jobs;
  options.threads = args.threads;
  codegen::requireRunnableHere(options.target);
  compiler::PolyhedralModel lowered = lowerModel(args, options.target);
  const ir::Program &program = lowered.program;
  std::vector<ir::Tensor> inputs;
  for (const auto &file : bindFiles(args.inputs, program, program.inputs, "input"))
    inputs.push_back(ir::readNpy(file));
  std::vector<std::string> outFiles = bindFiles(args.outputs, program, program.outputs, "output");
  compiler::checkInputs(program, inputs);
  std::vector<ir::Tensor> outputs =
      compiler::CompiledModel::compile(std::move(lowered), options)->run(inputs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    ir::writeNpy(outFiles[i], outputs[i]);
    std::cout << "wrote " << outFiles[i] << " (" << ir::shapeToString(outputs[i].shape) << ")\n";
  }
}

} // namespace

void addRunCommand(CLI::App &app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App *cmd = app.add_subcommand("run", "JIT-compile MODEL and run it on .npy inputs");
  addModelOptions(*cmd, *args);
  cmd->add_option("-i,--input", args->inputs,
                  "[NAME=]FILE.npy float32 input (in graph order when NAME is omitted)")
      ->required();
  cmd->add_option("-o,--output", args->outputs,
                  "[NAME=]FILE.npy to write an output to (graph order when NAME is omitted)")
      ->required();
  cmd->add_option("--threads", args->threads, "Threads of the parallel loops")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  addTargetOptions(*cmd, *args, false);
  cmd->callback([args] { run(*args); });
}

} // namespace nasc::cli
