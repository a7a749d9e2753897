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
  TraceChoices choices;
  for (const TraceChoiceMember &member : kTraceChoiceMembers) {
    choices.*member.value = step->scalar(member.name);
    if (choices.*member.value < 0)
      throw Error(source + ": node '" + trace.node + "': " + step->toString() +
                  ": a choice must be 0 (the default trace's own) or positive");
  }
  if (choices.order > kRowsOutside)
    throw Error(source + ": node '" + trace.node + "': " + step->toString() +
                ": order must be 0, " + std::to_string(kChannelsOutside) +
                " (output channels outside the rows) or " + std::to_string(kRowsOutside) +
                " (rows outside the output channels)");
  return choices;
}

ScheduleStep defaultTraceStep(const TraceChoices &choices) {
  ScheduleStep step{kDefaultTracePrimitive, {}, {}};
  for (const TraceChoiceMember &member : kTraceChoiceMembers)
    step.args[member.name] = {choices.*member.value};
  return step;
}

std::string choicesText(const TraceChoices &choices) {
  std::string text;
  for (const TraceChoiceMember &member : kTraceChoiceMembers)
    if (choices.*member.value != 0)
      text += (text.empty() ? "" : " ") + std::string(member.name) + "=" +
              std::to_string(choices.*member.value);
  return text;
}

} // namespace nasc::compiler
