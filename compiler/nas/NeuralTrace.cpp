#include "compiler/nas/NeuralTrace.h"

#include "compiler/transforms/Primitives.h"

#include <algorithm>

namespace nasc::nas {

bool isNeuralStep(const compiler::ScheduleStep &step) {
  const compiler::PrimitiveSpec *spec = compiler::findPrimitive(step.primitive);
  return spec && spec->neural;
}

bool onlyNeuralSteps(const compiler::KernelSchedule &trace) {
  return !trace.steps.empty() && std::all_of(trace.steps.begin(), trace.steps.end(), isNeuralStep);
}

NeuralStep toNeuralStep(const std::string &node, const compiler::ScheduleStep &step) {
  NeuralStep neural{node, step.primitive, {}};
  for (const compiler::ArgumentSpec &arg : compiler::findPrimitive(step.primitive)->arguments)
    for (int value : step.list(arg.name))
      neural.args.push_back(value);
  return neural;
}

compiler::ScheduleStep toScheduleStep(const NeuralStep &step) {
  const compiler::PrimitiveSpec *spec = compiler::findPrimitive(step.transform);
  if (!spec || !spec->neural)
    throw Error("'" + step.transform + "' is no neural schedule primitive");
  compiler::ScheduleStep scheduleStep{step.transform, {}, {}, ""};
  size_t next = 0;
  for (const compiler::ArgumentSpec &arg : spec->arguments) {
    const size_t count = arg.isList ? step.args.size() - next : 1;
    std::vector<int> &values = scheduleStep.args[arg.name];
    for (size_t k = 0; k < count; ++k)
      values.push_back(static_cast<int>(step.args.at(next++)));
  }
  return scheduleStep;
}

compiler::ModelSchedule neuralSchedule(const std::vector<NeuralStep> &steps,
                                       const std::string &source, const std::string &capacity) {
  compiler::ModelSchedule schedule{source, {}};
  for (const NeuralStep &step : steps) {
    auto entry =
        std::find_if(schedule.kernels.begin(), schedule.kernels.end(),
                     [&](const compiler::KernelSchedule &k) { return k.node == step.node; });
    if (entry == schedule.kernels.end())
      entry = schedule.kernels.insert(schedule.kernels.end(), {step.node, {}});
    entry->steps.push_back(toScheduleStep(step));
  }
  for (compiler::KernelSchedule &entry : schedule.kernels)
    if (!steps.empty() && entry.node == steps.back().node)
      entry.steps.back().capacity = capacity; // the last step of its node is steps.back()
  return schedule;
}

void applyNeuralSteps(ir::Graph &graph, const compiler::ModelSchedule &schedule) {
  for (const compiler::KernelSchedule &trace : schedule.kernels) {
    bool scheduled = false;
    for (size_t i = 0; i < trace.steps.size(); ++i) {
      if (!isNeuralStep(trace.steps[i])) {
        scheduled = true;
        continue;
      }
      if (scheduled)
        compiler::throwScheduleStepError(
            schedule.source, trace, i,
            Error("a neural step must come before the schedule steps of its node"));
      try {
        graph = applyNeuralStep(graph, toNeuralStep(trace.node, trace.steps[i]));
      } catch (const RefusedTransformation &e) {
        compiler::throwScheduleStepError(schedule.source, trace, i, e, true);
      } catch (const Error &e) {
        compiler::throwScheduleStepError(schedule.source, trace, i, e);
      }
    }
  }
}

} // namespace nasc::nas
