// The MODEL positional and the --schedule option shared by the verbs that compile a model.
#pragma once

#include "compiler/Pipeline.h"

#include <CLI/CLI.hpp>

#include <string>

namespace nasc::cli {

/// The model to compile and the schedule file that schedules (some of) its kernels.
struct ModelArgs {
  std::string model;
  std::string schedule; ///< Empty: nasc's default schedule for every kernel.
};

/// Registers MODEL (required, an existing .onnx / .json file) and --schedule FILE on `cmd`.
void addModelOptions(CLI::App &cmd, ModelArgs &args);

/// Loads args.model (ir::loadModel) and lowers it with the schedule file, if any
/// (compiler::readScheduleFile, compiler::lowerToPolyhedral), default schedules chosen for
/// `target`'s vector unit ("native" or an LLVM triple). Throws nasc::Error as those do.
compiler::PolyhedralModel lowerModel(const ModelArgs &args, const std::string &target = "native");

} // namespace nasc::cli
