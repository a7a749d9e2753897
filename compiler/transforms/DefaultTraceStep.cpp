// The default_trace step of a schedule file: TraceChoices in a kernel's trace (declared in
// DefaultSchedule.h).
#include "compiler/transforms/DefaultSchedule.h"

#include "compiler/nas/NeuralTrace.h"

#include <algorithm>

namespace nasc::compiler {

namespace {

bool isChoicesStep(const ScheduleStep &step) { return step.primitive == kDefaultTracePrimitive; }

} // namespace

bool scheduledByDefault(const KernelSchedule &trace, const std::string &source) {
  auto choices = std::find_if(trace.steps.begin(), trace.steps.end(), isChoicesStep);
  const bool neuralBefore = std::all_of(trace.steps.begin(), choices, nas::isNeuralStep);
  if (choices != trace.steps.end() && (choices + 1 != trace.steps.end() || !neuralBefore))
    throw Error(source + ": node '" + trace.node + "': a " + kDefaultTracePrimitive +
                " step must be the trace's last step, after neural steps only");
  return !trace.steps.empty() && neuralBefore;
}

TraceChoices traceChoices(const KernelSchedule &trace, const std::string &source) {
  auto step = std::find_if(trace.steps.begin(), trace.steps.end(), isChoicesStep);
  if (step == trace.steps.end())
    return {};
  TraceChoices choices{step->scalar("block"), step->scalar("jam"), step->scalar("unroll")};
  if (choices.block < 0 || choices.jam < 0 || choices.unroll < 0)
    throw Error(source + ": node '" + trace.node + "': " + step->toString() +
                ": a choice must be 0 (the default trace's own) or positive");
  return choices;
}

ScheduleStep defaultTraceStep(const TraceChoices &choices) {
  return {kDefaultTracePrimitive,
          {},
          {{"block", {choices.block}}, {"jam", {choices.jam}}, {"unroll", {choices.unroll}}}};
}

std::string choicesText(const TraceChoices &choices) {
  std::string text;
  auto add = [&](const char *name, int value) {
    if (value != 0)
      text += (text.empty() ? "" : " ") + std::string(name) + "=" + std::to_string(value);
  };
  add("block", choices.block);
  add("jam", choices.jam);
  add("unroll", choices.unroll);
  return text;
}

} // namespace nasc::compiler
