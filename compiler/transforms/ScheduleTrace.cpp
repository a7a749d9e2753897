#include "compiler/transforms/ScheduleTrace.h"

#include "compiler/transforms/PrimitiveErrors.h"
#include "compiler/transforms/Primitives.h"
#include "compiler/transforms/TransformErrors.h"

#include <algorithm>

namespace nasc::compiler {

namespace {

std::string listText(const std::vector<int> &values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

} // namespace

int ScheduleStep::scalar(const std::string &name) const {
  const std::vector<int> &values = list(name);
  if (values.size() != 1)
    throw Error(primitive + ": argument '" + name + "' must be one integer");
  return values[0];
}

const std::vector<int> &ScheduleStep::list(const std::string &name) const {
  auto found = args.find(name);
  if (found == args.end())
    throw Error(primitive + ": missing argument '" + name + "'");
  return found->second;
}

std::vector<std::string> ScheduleStep::argumentOrder() const {
  std::vector<std::string> names;
  if (const PrimitiveSpec *spec = findPrimitive(primitive))
    for (const ArgumentSpec &arg : spec->arguments)
      if (args.count(arg.name))
        names.push_back(arg.name);
  for (const auto &[name, values] : args)
    if (std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  return names;
}

bool ScheduleStep::isListArgument(const std::string &name) const {
  if (const PrimitiveSpec *spec = findPrimitive(primitive))
    for (const ArgumentSpec &arg : spec->arguments)
      if (arg.name == name)
        return arg.isList;
  return true;
}

std::string ScheduleStep::toString() const {
  std::vector<std::string> parts = statements;
  for (const std::string &name : argumentOrder()) {
    const std::vector<int> &values = args.at(name);
    bool scalar = values.size() == 1 && !isListArgument(name);
    parts.push_back(name + "=" + (scalar ? std::to_string(values[0]) : listText(values)));
  }
  std::string text = primitive + "(";
  for (size_t i = 0; i < parts.size(); ++i)
    text += (i ? ", " : "") + parts[i];
  return text + ")";
}

void throwScheduleStepError(const std::string &source, const KernelSchedule &trace, size_t index,
                            const Error &cause, bool refused) {
  const std::string message = source + ": node '" + trace.node + "' step " +
                              std::to_string(index + 1) + " " + trace.steps[index].toString() +
                              " does not apply: " + cause.what();
  if (dynamic_cast<const IllegalTransformation *>(&cause) ||
      dynamic_cast<const CarriedDependence *>(&cause))
    throw IllegalScheduleStep(message);
  if (refused)
    throw RefusedScheduleStep(message);
  throw StaleScheduleStep(message);
}

} // namespace nasc::compiler
