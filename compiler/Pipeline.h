// The compiler driver: model file -> Graph -> Program of Kernels -> Scops -> isl ASTs ->
// generated code, in-process (JIT) or as a shared library.
#pragma once

#include "codegen/GeneratedCode.h"
#include "codegen/Target.h"
#include "compiler/transforms/ScheduleTrace.h"
#include "ir/Graph.h"
#include "ir/PassTimes.h"
#include "ir/Program.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <memory>
#include <string>
#include <vector>

namespace nasc::compiler {

/// Options of a compilation.
struct CompileOptions {
  /// What to generate code for (codegen::resolveTarget: the triple and CPU of --target /
  /// --cpu); by default this machine's triple and codegen::defaultCpu().
  codegen::Target target = codegen::resolveTarget();
  /// Prefix of the generated symbols (`<prefix>run`, `<prefix>workspace_bytes`).
  std::string symbolPrefix = "nasc_generated_";
  /// Threads of the parallel loops: the JIT's initial count (CompiledModel::compile) and a
  /// shared library's default (nasc_model_create; nasc_model_set_num_threads changes it).
  int threads = 1;
  /// JIT only: emit the per-kernel timing hook (runtime::KernelProfile), for nasc bench.
  bool profile = false;
};

/// A model lowered to the polyhedral stage: every kernel with its Scop (its schedule built by
/// the kernel's trace), its dependences and its isl AST. `schedule` holds the trace of every
/// kernel in program order (the schedule file's, or compiler::defaultTrace), after the entries
/// of neural steps whose node they replaced, so that scheduleToJson(schedule) replays this
/// compilation exactly. `graph` is the graph after the schedule's neural steps.
/// `isl` owns the isl context of `scops` and `asts` (declared first, destroyed last).
struct PolyhedralModel {
  std::unique_ptr<poly::IslContext> isl;
  ir::Graph graph;
  ir::Program program;
  std::vector<poly::Scop> scops;
  std::vector<poly::Dependences> dependences;
  std::vector<isl::ast_node> asts;
  ModelSchedule schedule;
  /// Wall-clock time of each lowering phase (neural steps, lowering to kernels, layout steps,
  /// Scops, dependences, default trace, schedule trace, isl AST).
  ir::PassTimes times;
};

/// Lowers an inference-ready graph (ir::loadModel) to Kernels, builds each Kernel's Scop,
/// schedules it and generates its AST. The schedule's neural steps are applied to the graph
/// first (nas::applyNeuralSteps). A kernel named in `schedule` (by the name of a graph
/// node it implements, or its kernel name) is scheduled by that trace (applyLayoutSteps, then
/// applyTrace); a trace of neural steps only, or of neural steps and a default_trace step
/// (scheduledByDefault), is followed by the default trace with that step's TraceChoices (the
/// step itself is not kept in `schedule`); every other kernel gets compiler::applyDefaultLayout
/// and compiler::defaultTrace for the vector unit `unit` (the target's:
/// CompileOptions::target.vector).
/// Between the layout steps of all kernels and their Scops, forwardBlockedLayouts keeps
/// activations blocked between kernels that can read them so. Kernels scheduled by default that
/// have the same structure (ir::kernelStructure: equal up to names) share the first one's
/// dependences, default trace, schedule and AST object (and so, in codegen, one function).
/// Throws nasc::Error for unsupported ops or shapes, and for a schedule entry that names no
/// kernel or the same kernel as another entry; StaleScheduleStep for a step that does not apply.
PolyhedralModel
lowerToPolyhedral(ir::Graph graph, const ModelSchedule &schedule = {},
                  const codegen::VectorUnit &unit = codegen::resolveTarget().vector);

/// Emits and optimizes the code of a lowered model.
codegen::GeneratedCode generateCode(const PolyhedralModel &model, const CompileOptions &options);

} // namespace nasc::compiler
