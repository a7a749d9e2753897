// The verbs of the `nasc` command line; each registers itself on the CLI11 app.
#pragma once

#include <CLI/CLI.hpp>

namespace nasc::cli {

/// `nasc compile MODEL -o OUT.so [--header OUT.h] [--target native] [--threads N]`
void addCompileCommand(CLI::App &app);
/// `nasc run MODEL --input [NAME=]FILE.npy ... --output [NAME=]FILE.npy ...`
void addRunCommand(CLI::App &app);
/// `nasc bench MODEL [--repeat R] [--threads N]`
void addBenchCommand(CLI::App &app);
/// `nasc inspect MODEL [--node NAME] [--stage graph|kernel|isl|ast|llvm]`
void addInspectCommand(CLI::App &app);

} // namespace nasc::cli
