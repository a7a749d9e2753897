#include "tools/nasc/ModelArgs.h"

#include "compiler/nas/NeuralTrace.h"
#include "compiler/search/LayerTimes.h"
#include "ir/import/ModelLoader.h"

namespace nasc::cli {

void addModelOptions(CLI::App &cmd, ModelArgs &args) {
  cmd.add_option("MODEL", args.model,
                 "Model: .onnx (ONNX up to opset 17) or .json (nasc spec, docs/model-spec.md)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("--schedule", args.schedule,
                 "Schedule file (JSON trace of schedule primitives and neural steps per node, "
                 "docs/schedules.md; "
                 "`nasc inspect MODEL --stage schedule` prints the one in use); kernels it does "
                 "not name get the default schedule")
      ->check(CLI::ExistingFile);
  cmd.add_option("--db", args.db,
                 "Tuning database of `nasc search` (docs/search.md): each Conv the schedule "
                 "leaves to the default trace gets the schedule choices measured fastest for its "
                 "shape on this target by this nasc version; Convs without records keep the "
                 "default")
      ->check(CLI::ExistingFile);
  cmd.add_option("--jobs,-j", args.jobs,
                 "Compiler threads (0: one per hardware thread): the polyhedral passes work on "
                 "that many kernels at a time, each in its own isl context, and LLVM on that "
                 "many of the code's parts; the generated code does not depend on it")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

void addTargetOptions(CLI::App &cmd, ModelArgs &args, bool cross) {
  cmd.add_option("--cpu", args.cpu,
                 "CPU to generate code for: an LLVM CPU name (znver4, skylake-avx512, "
                 "neoverse-n1, ...), an x86-64 level (x86-64-v2, x86-64-v3 = AVX2, x86-64-v4 = "
                 "AVX-512) or host (this machine's CPU and features); default $NASC_CPU, else "
                 "host (generic for another --target). Its vector unit sizes the default "
                 "schedule; `nasc inspect MODEL --stage target` prints it (docs/targets.md)");
  if (cross)
    cmd.add_option("--target", args.triple,
                   "native (this machine's triple) or another LLVM triple, e.g. "
                   "aarch64-linux-gnu to cross-compile; `compile` links it with Debian's "
                   "<triple>-gcc, or $CC (docs/targets.md)")
        ->capture_default_str();
}

compiler::PolyhedralModel lowerModel(const ModelArgs &args, const codegen::Target &target,
                                     const std::string &stopAfter) {
  compiler::ModelSchedule schedule;
  if (!args.schedule.empty())
    schedule = compiler::readScheduleFile(args.schedule);
  ir::PassTimes times;
  ir::Graph graph = times.time("import", [&] { return ir::loadModel(args.model); });
  if (!args.db.empty())
    schedule = times.time("tuning database", [&] {
      ir::Graph transformed = graph;
      nas::applyNeuralSteps(transformed, schedule);
      const search::TuningDb db(args.db, search::TuningDb::Access::ReadOnly);
      return search::withChoices(schedule, search::tunedChoices(transformed, db, target));
    });
  compiler::PolyhedralModel model =
      compiler::lowerToPolyhedral(std::move(graph), schedule, target.vector, stopAfter, args.jobs);
  times.add(model.times);
  model.times = times;
  return model;
}

} // namespace nasc::cli
