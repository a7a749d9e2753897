// The MODEL positional and the --schedule, --cpu and --target options shared by the verbs that
// compile a model.
#pragma once

#include "compiler/Pipeline.h"

#include <CLI/CLI.hpp>

#include <string>

namespace nasc::cli {

/// The model to compile, the schedule file that schedules (some of) its kernels, and the target.
struct ModelArgs {
  std::string model;
  std::string schedule;          ///< Empty: nasc's default schedule for every kernel.
  std::string triple = "native"; ///< --target
  std::string cpu;               ///< --cpu; empty: codegen::defaultCpu() ($NASC_CPU or host)
  std::string db;                ///< --db: a tuning database whose fastest choices are used
  int jobs = 0;                  ///< --jobs: compiler threads (0: every hardware thread)

  /// codegen::resolveTarget(triple, cpu). Throws nasc::Error for an unknown triple or CPU.
  codegen::Target target() const { return codegen::resolveTarget(triple, cpu); }
};

/// Registers MODEL (required, an existing .onnx / .json file), --schedule FILE, --db FILE and
/// --jobs N on `cmd`.
void addModelOptions(CLI::App &cmd, ModelArgs &args);

/// Registers --cpu NAME on `cmd`, and --target TRIPLE if `cross` (verbs that only run code here
/// take no other triple).
void addTargetOptions(CLI::App &cmd, ModelArgs &args, bool cross);

/// Loads args.model (ir::loadModel) and lowers it with the schedule file, if any
/// (compiler::readScheduleFile, compiler::lowerToPolyhedral), default schedules chosen for
/// `target`'s vector unit; with a tuning database, each Conv (after the schedule's neural steps)
/// that the schedule leaves to the default trace gets its fastest recorded schedule choices
/// (search::tunedChoices). Runs the passes up to and including `stopAfter` (all when empty), on
/// args.jobs threads.
/// The model's times start with the import. Throws nasc::Error as those do.
compiler::PolyhedralModel lowerModel(const ModelArgs &args, const codegen::Target &target,
                                     const std::string &stopAfter = {});

} // namespace nasc::cli
