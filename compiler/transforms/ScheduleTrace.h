// Schedules as data: a kernel's schedule is the trace of primitive calls (interchange, split,
// tile, fuse, unroll, vectorize, parallelize) that builds it from the Scop's initial schedule;
// a model's schedule is one trace per kernel, keyed by graph node name.
#pragma once

#include "ir/Error.h"

#include <map>
#include <string>
#include <vector>

namespace nasc::compiler {

/// One primitive call, e.g. tile of statement S1 with sizes [8, 4] on its band 0:
/// {primitive "tile", statements {"S1"}, args {"sizes": [8, 4], "band": [0]}}.
/// Scalar arguments are stored as one-element lists; which arguments a primitive takes, and
/// which are scalars, is given by its PrimitiveSpec (compiler/transforms/Primitives.h).
/// A neural step (group, bottleneck, ...; compiler/nas/NeuralStep.h) names no statement: it
/// changes the graph node the trace belongs to, before the kernel is built.
struct ScheduleStep {
  std::string primitive;
  std::vector<std::string> statements; ///< One statement, several for fuse, none for neural.
  std::map<std::string, std::vector<int>> args;
  /// For a neural step, the capacity gate's record (a JSON object: {"legal", "policy",
  /// "proxies", ...}, docs/capacity.md) for the model after this step and every step before it,
  /// kept verbatim; "" when the step was not checked.
  std::string capacity = {};

  /// Scalar argument `name`. Throws nasc::Error if it is missing or a list.
  int scalar(const std::string &name) const;
  /// List argument `name`. Throws nasc::Error if it is missing.
  const std::vector<int> &list(const std::string &name) const;
  /// The names of `args`: the primitive's arguments in its PrimitiveSpec order, then any others.
  std::vector<std::string> argumentOrder() const;
  /// Whether the primitive declares argument `name` a list (true for unknown arguments).
  bool isListArgument(const std::string &name) const;
  /// "tile(S1, sizes=[8, 4], band=0)", for messages.
  std::string toString() const;
};

/// A step the default trace tried and did not apply, with the refusal's message (e.g. the
/// dependence a fuse would break).
struct RefusedStep {
  ScheduleStep step;
  std::string reason;
};

/// The trace that schedules one kernel, named by the first graph node the kernel implements
/// (ir::KernelCall::nodes[0], e.g. the Conv of a fused Conv+Relu kernel). Its neural steps, if
/// any, come first: they change that node (compiler/nas/NeuralTrace.h), the schedule steps then
/// schedule the kernel that implements the result. `refused`: for a default trace, the steps it
/// tried and did not apply, in order (not part of a schedule file; `nasc inspect --stage
/// schedule --explain` prints them).
struct KernelSchedule {
  std::string node;
  std::vector<ScheduleStep> steps;
  std::vector<RefusedStep> refused = {};
};

/// The schedule of a whole model: kernel traces in program order (a file may list a subset).
/// `source` names where it came from ("schedule.json"), for messages.
struct ModelSchedule {
  std::string source;
  std::vector<KernelSchedule> kernels;
};

/// A schedule step that does not apply to the current model. `what()` names the file, node and
/// step. Thrown as itself when the model changed under the step (its statement, band or member
/// no longer exists, a layout step no longer fits); as IllegalScheduleStep or
/// RefusedScheduleStep for the other two causes, so a caller can tell the three apart and one
/// that does not care catches this base.
class StaleScheduleStep : public Error {
public:
  explicit StaleScheduleStep(const std::string &message) : Error(message) {}
};

/// A schedule step that is well formed for the model but would break a dependence (the cause was
/// an IllegalTransformation or a CarriedDependence); `what()` names the broken dependence
/// instances in isl notation.
class IllegalScheduleStep : public StaleScheduleStep {
public:
  explicit IllegalScheduleStep(const std::string &message) : StaleScheduleStep(message) {}
};

/// A neural step its transformation refuses (nas::RefusedTransformation: the layer's structure,
/// e.g. a group count that divides no channel count).
class RefusedScheduleStep : public StaleScheduleStep {
public:
  explicit RefusedScheduleStep(const std::string &message) : StaleScheduleStep(message) {}
};

/// Throws the StaleScheduleStep for step `index` (0-based; named 1-based) of `trace` from schedule
/// `source`, failed with `cause`: IllegalScheduleStep for an IllegalTransformation or
/// CarriedDependence, RefusedScheduleStep when `refused` (a neural step's refusal), else
/// StaleScheduleStep; the message is "<source>: node '<node>' step <n> <step> does not apply:
/// <cause>".
[[noreturn]] void throwScheduleStepError(const std::string &source, const KernelSchedule &trace,
                                         size_t index, const Error &cause, bool refused = false);

/// The JSON text of `schedule` (format in docs/schedules.md):
/// {"nasc_schedule": 1, "kernels": {"<node>": [{"primitive": "group", "G": 4, "capacity":
/// {...}}, {"primitive": "tile", "statement": "S1", "sizes": [8, 4], "band": 0}, ...], ...}},
/// one step per line.
std::string scheduleToJson(const ModelSchedule &schedule);

/// Parses the JSON text of a schedule; `source` names it in messages and in the result.
/// Throws nasc::Error naming `source`, the node and the step (1-based) for malformed JSON,
/// unknown primitives, and missing, extra or ill-typed arguments.
ModelSchedule scheduleFromJson(const std::string &text, const std::string &source);

/// Reads and parses a schedule file. Throws nasc::Error if it cannot be read or parsed.
ModelSchedule readScheduleFile(const std::string &path);

} // namespace nasc::compiler
