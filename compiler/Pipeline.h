// The compiler driver: model file -> Graph -> Program of Kernels -> Scops -> isl ASTs ->
// generated code, in-process (JIT) or as a shared library.
#pragma once

#include "codegen/GeneratedCode.h"
#include "codegen/Target.h"
#include "compiler/transforms/DefaultSchedule.h"
#include "compiler/transforms/ScheduleTrace.h"
#include "ir/Graph.h"
#include "ir/PassTimes.h"
#include "ir/Program.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <iosfwd>
#include <memory>
#include <optional>
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
  /// Threads that optimize and compile the code's parts (codegen::GeneratedCode;
  /// ir::resolveThreads: 0 is every hardware thread); the code does not depend on it.
  int jobs = 0;
};

/// One kernel of a lowered model (the call program.calls[c] of PolyhedralModel::kernels[c])
/// as the passes fill it in: its trace, its Scop, dependences and AST.
struct KernelRecord {
  /// The kernel's steps so far: neural steps, layout steps (pass "layout"), then the schedule
  /// primitives (pass "schedule"; the schedule file's, or compiler::defaultTrace's with the
  /// steps it tried and did not apply in `refused`). scheduleToJson of every trace replays
  /// the compilation exactly.
  KernelSchedule trace;
  /// Whether the default layout and trace schedule the kernel (it has no schedule entry, or an
  /// entry of neural steps and a default_trace step only, scheduledByDefault), with `choices`.
  bool byDefault = true;
  TraceChoices choices;
  /// The index of the trace's first step added by pass "schedule".
  size_t scheduledFrom = 0;
  /// The first earlier kernel scheduled by default with the same structure (ir::kernelStructure
  /// after the layout passes) and choices, whose dependences, default steps, schedule and AST
  /// object this one shares (the statements' names and domains, which they are about, are the
  /// same; only tensor names differ); nullopt when there is none.
  std::optional<size_t> sameAs;
  /// The index in PolyhedralModel::contexts of the isl context that holds this kernel's Scop,
  /// dependences, schedule and AST: its own, or that of the kernel it shares them with (set by
  /// pass "scop").
  size_t context = 0;
  /// Set by pass "scop"; its schedule by pass "schedule". (isl's C++ objects cannot be copied
  /// when null, hence the optionals.)
  std::optional<poly::Scop> scop;
  std::optional<poly::Dependences> dependences; ///< Set by pass "dependences".
  std::optional<isl::ast_node> ast; ///< Set by pass "ast" (one object for kernels sharing it).
};

/// A model lowered to the polyhedral stage by the passes of pipelinePasses(), or by those up
/// to one of them. `graph` is the graph after the schedule's neural steps. `contexts` own the
/// isl contexts of the kernels' Scops and ASTs (declared first, destroyed last): one per kernel
/// that shares nothing with an earlier one, so that the passes can work on kernels of different
/// contexts at the same time (an isl context is used by one thread at a time).
struct PolyhedralModel {
  std::vector<std::unique_ptr<poly::IslContext>> contexts;
  ir::Graph graph;
  ir::Program program;
  /// One record per call of `program`, in program order (pass "lower" makes them).
  std::vector<KernelRecord> kernels;
  /// Where the schedule came from (the file's name, or "default schedule"), for messages.
  std::string scheduleSource;
  /// The schedule's entries of only neural steps whose node they replaced (seq1, seq2, seq3):
  /// they name no kernel.
  std::vector<KernelSchedule> replaced;
  /// Wall-clock time of each lowering phase (neural steps, lowering to kernels, layout steps,
  /// Scops, dependences, default trace, schedule trace, isl AST).
  ir::PassTimes times;

  /// The schedule of this compilation: the replaced entries, then every kernel's trace in
  /// program order; scheduleToJson of it replays the compilation exactly.
  ModelSchedule schedule() const;
  /// Every kernel's AST, in program order (codegen's input); needs pass "ast".
  std::vector<isl::ast_node> asts() const;
  /// The isl context of kernel `kernel`'s Scop (KernelRecord::context); needs pass "scop".
  isl::ctx context(size_t kernel) const;
};

/// A pass of lowerToPolyhedral: `name` (`nasc inspect MODEL --after NAME`) and what it does,
/// in one line (`nasc inspect --help`, docs/architecture.md).
struct PipelinePass {
  std::string name;
  std::string summary;
};

/// The passes of lowerToPolyhedral, in the order they run: neural-steps, lower, layout,
/// forward-blocked, forward-padded, scop, dependences, schedule, ast.
const std::vector<PipelinePass> &pipelinePasses();

/// Runs the passes of pipelinePasses() on an inference-ready graph (ir::loadModel), all of
/// them or those up to and including `stopAfter`. The schedule's neural steps are applied to
/// the graph first (nas::applyNeuralSteps). A kernel named in `schedule` (by the name of a
/// graph node it implements, or its kernel name) is scheduled by that trace (applyLayoutSteps,
/// then applyTrace); a trace of neural steps only, or of neural steps and a default_trace step
/// (scheduledByDefault), is followed by the default trace with that step's TraceChoices (the
/// step itself is not kept in the trace); every other kernel gets compiler::applyDefaultLayout
/// and compiler::defaultTrace for the vector unit `unit` (the target's:
/// CompileOptions::target.vector). Between the layout steps of all kernels and their Scops,
/// forwardBlockedLayouts keeps activations blocked between kernels that can read them so.
/// Kernels scheduled by default that have the same structure share the first one's
/// dependences, default trace, schedule and AST object (and so, in codegen, one function).
/// The passes from "scop" on work on up to `jobs` kernels at a time (ir::resolveThreads: 0 is
/// every hardware thread); the result does not depend on `jobs`.
/// Throws nasc::Error for unsupported ops or shapes, for a schedule entry that names no kernel
/// or the same kernel as another entry, and for a `stopAfter` that names no pass;
/// StaleScheduleStep (or its IllegalScheduleStep, RefusedScheduleStep) for a step that does not
/// apply.
PolyhedralModel lowerToPolyhedral(ir::Graph graph, const ModelSchedule &schedule = {},
                                  const codegen::VectorUnit &unit = codegen::resolveTarget().vector,
                                  const std::string &stopAfter = {}, int jobs = 0);

/// Prints what pass `pass` made of `model` (lowered up to that pass or past it), for `nasc
/// inspect MODEL --after PASS`: the graph (neural-steps); per kernel, or only the kernels
/// implementing `node` when it is not empty, the Kernel (lower, forward-blocked, forward-padded),
/// the Kernel and its trace so far (layout), the Scop (scop), the dependences (dependences), the
/// trace and the schedule tree (schedule) or the AST (ast); compiler/PipelineDump.h. Throws
/// nasc::Error for an unknown pass or a `node` that no kernel implements.
void printAfterPass(std::ostream &out, const PolyhedralModel &model, const std::string &pass,
                    const std::string &node = {});

/// Whether `call` implements graph node `node` (or is the kernel named so).
bool implementsNode(const ir::KernelCall &call, const std::string &node);

/// Emits and optimizes the code of a lowered model.
codegen::GeneratedCode generateCode(const PolyhedralModel &model, const CompileOptions &options);

} // namespace nasc::compiler
