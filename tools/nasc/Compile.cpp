#include "compiler/SharedLibrary.h"
#include "tools/nasc/Commands.h"
#include "tools/nasc/ModelArgs.h"

#include <iostream>
#include <memory>

namespace nasc::cli {

namespace {

struct CompileArgs : ModelArgs {
  std::string output, header;
  int threads = 1;
  bool timePasses = false;
};

void compile(const CompileArgs &args) {
  compiler::CompileOptions options;
  options.target = args.target();
  options.jobs = args.jobs;
  options.threads = args.threads;
  compiler::PolyhedralModel model = lowerModel(args, options.target);
  ir::PassTimes times = model.times;
  times.add(compiler::emitSharedLibrary(model, options, args.output, args.header));
  std::cout << "wrote " << args.output << (args.header.empty() ? "" : " and " + args.header) << " ("
            << model.program.calls.size() << " kernels, " << model.program.flops() * 1e-9
            << " GFLOP per run)\n";
  if (args.timePasses)
    std::cout << times.report();
}

} // namespace

void addCompileCommand(CLI::App &app) {
  auto args = std::make_shared<CompileArgs>();
  CLI::App *cmd = app.add_subcommand(
      "compile", "Compile MODEL into a shared library with a C ABI (nasc_model_create/run/...)");
  addModelOptions(*cmd, *args);
  cmd->add_option("-o,--output", args->output, "Shared library to write (e.g. libmodel.so)")
      ->required();
  cmd->add_option("--header", args->header, "Also write the C header declaring the ABI");
  addTargetOptions(*cmd, *args, true);
  cmd->add_flag("--time-passes", args->timePasses,
                "Print the wall-clock time of each compilation phase (import, neural steps, "
                "lowering, layout steps, Scops, dependences, schedule traces, isl AST, LLVM IR "
                "emission, LLVM O3, object file, link)");
  cmd->add_option("--threads", args->threads, "Default thread count of the library")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->callback([args] { compile(*args); });
}

} // namespace nasc::cli
