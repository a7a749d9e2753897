// The table of schedule primitives that a trace step may name: each primitive's arguments
// (for parsing and printing traces) and how a step applies it to a Scop's schedule.
#pragma once

#include "compiler/transforms/ScheduleTrace.h"
#include "ir/Program.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <isl/cpp.h>

#include <optional>
#include <string>
#include <vector>

namespace nasc::compiler {

/// One argument of a primitive: a scalar or a list of integers; optional ones have a default
/// that the parser fills in, so a parsed step always carries every argument.
struct ArgumentSpec {
  std::string name;
  bool isList = false;
  std::optional<int> defaultValue;
};

/// A primitive: its name in traces, whether it takes several statements (fuse) or one, its
/// arguments, and the call that applies a step of it (the free function of
/// compiler/transforms/<Primitive>.h, which throws its typed errors). A schedule primitive
/// (`apply`) changes the schedule tree; a layout primitive (`applyLayout`, e.g. pad_input)
/// changes the kernel and its program's buffers, before the Scop is built. A neural primitive
/// (one per transformation of compiler/nas/NeuralRegistry.h, its arguments the transformation's
/// parameters) has neither: it changes the graph node the trace belongs to
/// (compiler/nas/NeuralTrace.h) and names no statement.
struct PrimitiveSpec {
  std::string name;
  bool manyStatements = false;
  std::vector<ArgumentSpec> arguments;
  isl::schedule (*apply)(const poly::Scop &, const poly::Dependences &, const ScheduleStep &);
  void (*applyLayout)(ir::Program &, size_t call, const ScheduleStep &) = nullptr;
  bool neural = false;
  /// The default_trace step (compiler/transforms/DefaultSchedule.h, TraceChoices): names no
  /// statement and changes no schedule itself; the pipeline reads its arguments.
  bool choices = false;
  /// Whether a step of this primitive names statements (neither neural nor the choices).
  bool namesStatements() const { return !neural && !choices; }
};

/// Every primitive, in the order docs/schedules.md lists them.
const std::vector<PrimitiveSpec> &primitives();

/// The primitive named `name`, or nullptr.
const PrimitiveSpec *findPrimitive(const std::string &name);

/// `scop.schedule` with `step` applied (unchanged for a layout primitive, which
/// applyLayoutSteps applied to the kernel, and for a neural one, applied to the graph). Throws
/// nasc::Error for an unknown primitive or a missing argument, the primitive's typed errors
/// (IllegalTransformation, ...), and SingleIteration for any step that leaves a parallel loop
/// with at most one iteration (e.g. a split of the parallel loop by a factor not below its
/// extent): isl's AST would drop it and the mark would fall on the loop below.
isl::schedule applyStep(const poly::Scop &scop, const poly::Dependences &deps,
                        const ScheduleStep &step);

/// Applies the layout steps of `trace` (pad_input), in order, to the kernel of
/// program.calls[call] and to `program`'s buffers; the trace's other steps are left to
/// applyTrace. Throws StaleScheduleStep as applyTrace does.
void applyLayoutSteps(ir::Program &program, size_t call, const KernelSchedule &trace,
                      const std::string &source);

/// `scop.schedule` (the initial schedule of poly::buildScop) with the steps of `trace` applied
/// in order. Throws StaleScheduleStep naming `source`, the node and the step (1-based) when a
/// step does not apply, with the primitive's message.
isl::schedule applyTrace(const poly::Scop &scop, const poly::Dependences &deps,
                         const KernelSchedule &trace, const std::string &source);

} // namespace nasc::compiler
