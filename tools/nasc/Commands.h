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
/// `nasc inspect MODEL [--node NAME] [--stage graph|cost|kernel|schedule|isl|ast|llvm] [--schedule
/// S]`
void addInspectCommand(CLI::App &app);
/// `nasc fisher MODEL [--batch 128] [--seed S] [--seeds K] [--weights init|model]
/// [--bn insert|keep] [--json]`
void addFisherCommand(CLI::App &app);
/// `nasc mutate MODEL --apply NODE:transform(args) ... -o NEW.onnx [--weights init|slice]
/// [--seed S] [--show-isl] [--check-capacity [--policy P] [--theta X]]`; sets `exitStatus` to 3
/// when --check-capacity refuses the new model, else 0.
void addMutateCommand(CLI::App &app, int &exitStatus);
/// `nasc capacity ORIGINAL NEW [--policy P] [--theta X] [--tolerance X] [--batch 128] [--seed S]
/// [--seeds 3] [--steps K] [--json]`; sets `exitStatus` to 0 when NEW keeps the capacity, 3 when
/// not (errors are thrown as for every verb).
void addCapacityCommand(CLI::App &app, int &exitStatus);
/// `nasc db export DB --jsonl`: every record of a tuning database, one JSON line each.
void addDbCommand(CLI::App &app);

/// `nasc search MODEL --budget B --out DIR`: the joint search of neural transformations
/// (docs/search.md).
void addSearchCommand(CLI::App &app);

} // namespace nasc::cli
