// The verbs of the `nasc` command line; each registers itself on the CLI11 app.
#pragma once

#include <CLI/CLI.hpp>

namespace nasc::cli {

/// `nasc compile MODEL -o OUT.so [--header OUT.h] [--target native] [--threads N] [--schedule S]`
void addCompileCommand(CLI::App &app);
/// `nasc run MODEL --input [NAME=]FILE.npy ... --output [NAME=]FILE.npy ... [--schedule S]`
void addRunCommand(CLI::App &app);
/// `nasc bench MODEL [--repeat R] [--threads N] [--schedule S]`
void addBenchCommand(CLI::App &app);
/// `nasc inspect MODEL [--node NAME] [--stage graph|kernel|schedule|isl|ast|llvm] [--schedule S]`
void addInspectCommand(CLI::App &app);
/// `nasc fisher MODEL [--batch 128] [--seed S] [--seeds K] [--weights init|model]
/// [--bn insert|keep] [--json]`
void addFisherCommand(CLI::App &app);

} // namespace nasc::cli
