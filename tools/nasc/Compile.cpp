#include "compiler/SharedLibrary.h"
#include "tools/nasc/Commands.h"
#include "tools/nasc/ModelArgs.h"

#include <iostream>
#include <memory>

namespace nasc::cli {

namespace {

struct CompileArgs : ModelArgs {
  std::string output, header, target = "native";
  int threads = 1;
};

void compile(const CompileArgs &args) {
  compiler::CompileOptions options;
  options.target = args.target;
  options.threads = args.threads;
  compiler::PolyhedralModel model = lowerModel(args, args.target);
  compiler::emitSharedLibrary(model, options, args.output, args.header);
  std::cout << "wrote " << args.output << (args.header.empty() ? "" : " and " + args.header)
            << " (" << model.program.calls.size() << " kernels, "
            << model.program.flops() * 1e-9 << " GFLOP per run)\n";
}

} // namespace

void addCompileCommand(CLI::App &app) {
  auto args = std::make_shared<CompileArgs>();
  CLI::App *cmd = app.add_subcommand(
      "compile", "Compile MODEL into a shared library with a C ABI (nasc_model_create/run/...)");
  addModelOptions(*cmd, *args);
  cmd->add_option("-o,--output", args->output, "Shared library to write (e.g. libmodel.so)")->required();
  cmd->add_option("--header", args->header, "Also write the C header declaring the ABI");
  cmd->add_option("--target", args->target,
                  "native: the host CPU, its AVX2 / AVX-512 features detected at run time; "
                  "another LLVM triple (e.g. aarch64-linux-gnu) cross-compiles and links with "
                  "Debian's <triple>-gcc (or $CC); docs/targets.md")
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "Default thread count of the library")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->callback([args] { compile(*args); });
}

} // namespace nasc::cli
