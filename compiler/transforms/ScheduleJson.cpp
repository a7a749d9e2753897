// JSON reading and writing of ModelSchedule (declared in ScheduleTrace.h).
#include "compiler/transforms/Primitives.h"
#include "compiler/transforms/ScheduleTrace.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace nasc::compiler {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kFormatVersion = 1;

Json stepToJson(const ScheduleStep &step) {
  Json json;
  json["primitive"] = step.primitive;
  const PrimitiveSpec *spec = findPrimitive(step.primitive);
  if (spec && spec->manyStatements)
    json["statements"] = step.statements;
  else if (!spec || spec->namesStatements())
    json["statement"] = step.statements.empty() ? "" : step.statements[0];
  for (const std::string &name : step.argumentOrder()) {
    const std::vector<int> &values = step.args.at(name);
    json[name] = step.isListArgument(name) || values.size() != 1 ? Json(values) : Json(values[0]);
  }
  if (!step.capacity.empty())
    json["capacity"] = Json::parse(step.capacity);
  return json;
}

/// Reads and checks the parts of one step; `where` is "<source>: node 'x' step N".
class StepParser {
public:
  StepParser(const Json &json, std::string where) : json_(json), where_(std::move(where)) {}

  ScheduleStep parse() {
    if (!json_.is_object())
      fail("must be an object");
    step_.primitive = stringField("primitive");
    spec_ = findPrimitive(step_.primitive);
    if (!spec_)
      fail("unknown primitive '" + step_.primitive + "' (known: " + knownPrimitives() + ")");
    if (spec_->neural)
      parseCapacity();
    else if (spec_->namesStatements())
      parseStatements();
    for (const ArgumentSpec &arg : spec_->arguments)
      parseArgument(arg);
    rejectUnknownFields();
    return step_;
  }

private:
  [[noreturn]] void fail(const std::string &message) const {
    throw Error(where_ + (step_.primitive.empty() ? "" : " (" + step_.primitive + ")") + ": " +
                message);
  }

  static std::string knownPrimitives() {
    std::string names;
    for (const PrimitiveSpec &spec : primitives())
      names += (names.empty() ? "" : ", ") + spec.name;
    return names;
  }

  std::string stringField(const std::string &name) const {
    if (!json_.contains(name) || !json_[name].is_string())
      fail("field '" + name + "' must be a string");
    return json_[name].get<std::string>();
  }

  void parseStatements() {
    if (!spec_->manyStatements) {
      step_.statements = {stringField("statement")};
      return;
    }
    const Json *list = json_.contains("statements") ? &json_["statements"] : nullptr;
    if (!list || !list->is_array() || list->empty())
      fail("field 'statements' must be a non-empty list of statement names");
    for (const Json &name : *list) {
      if (!name.is_string())
        fail("field 'statements' must list statement names (strings)");
      step_.statements.push_back(name.get<std::string>());
    }
  }

  /// A neural step's optional gate record, kept as its JSON text.
  void parseCapacity() {
    if (!json_.contains("capacity"))
      return;
    if (!json_["capacity"].is_object())
      fail("field 'capacity' must be an object (the capacity gate's record)");
    step_.capacity = json_["capacity"].dump();
  }

  static bool isInt(const Json &value) {
    return value.is_number_integer() && value.get<double>() >= -2147483648.0 &&
           value.get<double>() <= 2147483647.0;
  }

  void parseArgument(const ArgumentSpec &arg) {
    if (!json_.contains(arg.name)) {
      if (!arg.defaultValue)
        fail("missing argument '" + arg.name + "'");
      step_.args[arg.name] = {*arg.defaultValue};
      return;
    }
    const Json &value = json_[arg.name];
    std::vector<int> values;
    if (!arg.isList && isInt(value)) {
      values.push_back(value.get<int>());
    } else if (arg.isList && value.is_array()) {
      for (const Json &v : value) {
        if (!isInt(v))
          fail("argument '" + arg.name + "' must be a list of integers");
        values.push_back(v.get<int>());
      }
    } else {
      fail("argument '" + arg.name + "' must be " +
           (arg.isList ? "a list of integers" : "an integer"));
    }
    step_.args[arg.name] = values;
  }

  void rejectUnknownFields() const {
    for (const auto &[key, value] : json_.items()) {
      bool known = key == "primitive" || key == (spec_->neural           ? "capacity"
                                                 : spec_->choices        ? "primitive"
                                                 : spec_->manyStatements ? "statements"
                                                                         : "statement");
      for (const ArgumentSpec &arg : spec_->arguments)
        known = known || key == arg.name;
      if (!known)
        fail("unknown field '" + key + "'");
    }
  }

  const Json &json_;
  std::string where_;
  ScheduleStep step_;
  const PrimitiveSpec *spec_ = nullptr;
};

Json parseJson(const std::string &text, const std::string &source) {
  try {
    return Json::parse(text);
  } catch (const Json::exception &e) {
    throw Error(source + ": invalid JSON: " + e.what());
  }
}

void checkHeader(const Json &root, const std::string &source) {
  if (!root.is_object())
    throw Error(source + ": a schedule must be a JSON object");
  if (!root.contains("nasc_schedule") || root["nasc_schedule"] != kFormatVersion)
    throw Error(source + ": field 'nasc_schedule' must be " + std::to_string(kFormatVersion) +
                " (the schedule format version)");
  if (!root.contains("kernels") || !root["kernels"].is_object())
    throw Error(source + ": field 'kernels' must be an object mapping node names to steps");
  for (const auto &[key, value] : root.items())
    if (key != "nasc_schedule" && key != "kernels")
      throw Error(source + ": unknown field '" + key + "'");
}

} // namespace

std::string scheduleToJson(const ModelSchedule &schedule) {
  std::ostringstream out;
  out << "{\n  \"nasc_schedule\": " << kFormatVersion << ",\n  \"kernels\": {";
  for (size_t k = 0; k < schedule.kernels.size(); ++k) {
    const KernelSchedule &kernel = schedule.kernels[k];
    out << (k ? "," : "") << "\n    " << Json(kernel.node).dump() << ": [";
    for (size_t s = 0; s < kernel.steps.size(); ++s)
      out << (s ? "," : "") << "\n      " << stepToJson(kernel.steps[s]).dump();
    out << (kernel.steps.empty() ? "]" : "\n    ]");
  }
  out << (schedule.kernels.empty() ? "}" : "\n  }") << "\n}\n";
  return out.str();
}

ModelSchedule scheduleFromJson(const std::string &text, const std::string &source) {
  Json root = parseJson(text, source);
  checkHeader(root, source);
  ModelSchedule schedule;
  schedule.source = source;
  for (const auto &[node, steps] : root["kernels"].items()) {
    std::string where = source + ": node '" + node + "'";
    if (!steps.is_array())
      throw Error(where + ": must map to a list of steps");
    KernelSchedule kernel{node, {}};
    for (size_t i = 0; i < steps.size(); ++i)
      kernel.steps.push_back(
          StepParser(steps[i], where + " step " + std::to_string(i + 1)).parse());
    schedule.kernels.push_back(std::move(kernel));
  }
  return schedule;
}

ModelSchedule readScheduleFile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw Error(path + ": cannot read the schedule file");
  std::ostringstream text;
  text << in.rdbuf();
  return scheduleFromJson(text.str(), path);
}

} // namespace nasc::compiler
