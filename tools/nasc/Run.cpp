#include "compiler/CompiledModel.h"
#include "ir/Npy.h"
#include "ir/import/ModelLoader.h"
#include "tools/nasc/Commands.h"
#include "tools/nasc/TensorArgs.h"

#include <iostream>
#include <memory>

namespace nasc::cli {

namespace {

struct RunArgs {
  std::string model;
  std::vector<std::string> inputs, outputs;
};

void run(const RunArgs &args) {
  compiler::PolyhedralModel lowered = compiler::lowerToPolyhedral(ir::loadModel(args.model));
  const ir::Program &program = lowered.program;
  std::vector<ir::Tensor> inputs;
  for (const auto &file : bindFiles(args.inputs, program, program.inputs, "input"))
    inputs.push_back(ir::readNpy(file));
  std::vector<std::string> outFiles = bindFiles(args.outputs, program, program.outputs, "output");
  compiler::checkInputs(program, inputs);
  std::vector<ir::Tensor> outputs = compiler::CompiledModel::compile(std::move(lowered))->run(inputs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    ir::writeNpy(outFiles[i], outputs[i]);
    std::cout << "wrote " << outFiles[i] << " (" << ir::shapeToString(outputs[i].shape) << ")\n";
  }
}

} // namespace

void addRunCommand(CLI::App &app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App *cmd = app.add_subcommand("run", "JIT-compile MODEL and run it on .npy inputs");
  cmd->add_option("MODEL", args->model, "Model: .onnx or .json")->required()->check(CLI::ExistingFile);
  cmd->add_option("-i,--input", args->inputs,
                  "[NAME=]FILE.npy float32 input (in graph order when NAME is omitted)")
      ->required();
  cmd->add_option("-o,--output", args->outputs,
                  "[NAME=]FILE.npy to write an output to (graph order when NAME is omitted)")
      ->required();
  cmd->callback([args] { run(*args); });
}

} // namespace nasc::cli
