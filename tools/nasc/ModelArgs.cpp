#include "tools/nasc/ModelArgs.h"

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
}

compiler::PolyhedralModel lowerModel(const ModelArgs &args, const std::string &target) {
  compiler::ModelSchedule schedule;
  if (!args.schedule.empty())
    schedule = compiler::readScheduleFile(args.schedule);
  return compiler::lowerToPolyhedral(ir::loadModel(args.model), schedule,
                                     codegen::vectorUnit(target));
}

} // namespace nasc::cli
