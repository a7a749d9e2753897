#include "compiler/Pipeline.h"

#include "compiler/PipelineDump.h"

#include "compiler/nas/NeuralTrace.h"
#include "compiler/transforms/ForwardBlocked.h"
#include "compiler/transforms/ForwardPadded.h"
#include "compiler/transforms/Primitives.h"
#include "ir/Error.h"
#include "ir/ParallelWork.h"
#include "ir/lower/Lower.h"

#include <algorithm>
#include <functional>
#include <map>

namespace nasc::compiler {

namespace {

std::string kernelNode(const ir::KernelCall &call) {
  return call.nodes.empty() ? call.kernel.name : call.nodes.front();
}

/// What the passes read besides the model they fill in.
struct PassInputs {
  const ModelSchedule &schedule;
  const codegen::VectorUnit &unit;
  int jobs; ///< Threads of the passes that work per isl context (0: every hardware thread).
};

/// For each call, the index of the entry of `schedule` naming it, or -1. Entries of only neural
/// steps whose node they replaced (seq1, seq2, seq3) match no call and go to `replaced`.
std::vector<int> matchSchedule(const ir::Program &program, const ModelSchedule &schedule,
                               std::vector<KernelSchedule> &replaced) {
  std::vector<int> entry(program.calls.size(), -1);
  for (size_t e = 0; e < schedule.kernels.size(); ++e) {
    const std::string &node = schedule.kernels[e].node;
    auto call = std::find_if(program.calls.begin(), program.calls.end(),
                             [&](const ir::KernelCall &c) { return implementsNode(c, node); });
    if (call == program.calls.end() && nas::onlyNeuralSteps(schedule.kernels[e])) {
      replaced.push_back(schedule.kernels[e]);
      continue;
    }
    if (call == program.calls.end())
      throw Error(schedule.source + ": node '" + node + "' is implemented by no kernel of model '" +
                  program.name + "' (see `nasc inspect MODEL --stage schedule`; the parts that " +
                  "seq1, seq2 and seq3 make of a node are scheduled under their own names)");
    int &slot = entry[static_cast<size_t>(call - program.calls.begin())];
    if (slot >= 0)
      throw Error(schedule.source + ": nodes '" + schedule.kernels[static_cast<size_t>(slot)].node +
                  "' and '" + node + "' name the same kernel '" + call->kernel.name + "'");
    slot = static_cast<int>(e);
  }
  return entry;
}

/// The record of call `c` with schedule entry `entry` (-1: none): its trace so far and whether
/// the default layout and trace schedule it, with which choices.
KernelRecord kernelRecord(const ir::KernelCall &call, const ModelSchedule &schedule, int entry,
                          const std::string &source) {
  KernelRecord record;
  record.trace = entry >= 0 ? schedule.kernels[static_cast<size_t>(entry)]
                            : KernelSchedule{kernelNode(call), {}};
  record.byDefault = entry < 0 || scheduledByDefault(record.trace, source);
  record.choices = traceChoices(record.trace, source);
  if (record.byDefault)
    std::erase_if(record.trace.steps, [](const ScheduleStep &step) {
      return step.primitive == kDefaultTracePrimitive;
    });
  return record;
}

void applyNeuralStepsPass(PolyhedralModel &model, const PassInputs &in) {
  model.times.time("neural steps", [&] { nas::applyNeuralSteps(model.graph, in.schedule); });
}

void lowerPass(PolyhedralModel &model, const PassInputs &in) {
  model.program =
      model.times.time("lowering to kernels", [&] { return ir::lowerGraph(model.graph); });
  std::vector<int> entries = matchSchedule(model.program, in.schedule, model.replaced);
  for (size_t c = 0; c < model.program.calls.size(); ++c)
    model.kernels.push_back(
        kernelRecord(model.program.calls[c], in.schedule, entries[c], model.scheduleSource));
}

void layoutPass(PolyhedralModel &model, const PassInputs &in) {
  for (size_t c = 0; c < model.kernels.size(); ++c) {
    KernelRecord &record = model.kernels[c];
    model.times.time("layout steps", [&] {
      if (record.byDefault) {
        std::vector<ScheduleStep> layout =
            applyDefaultLayout(model.program, c, in.unit, record.choices);
        record.trace.steps.insert(record.trace.steps.end(), layout.begin(), layout.end());
      } else {
        applyLayoutSteps(model.program, c, record.trace, model.scheduleSource);
      }
    });
  }
}

void forwardBlockedPass(PolyhedralModel &model, const PassInputs &) {
  model.times.time("layout steps", [&] { forwardBlockedLayouts(model.program); });
}

void forwardPaddedPass(PolyhedralModel &model, const PassInputs &) {
  model.times.time("layout steps", [&] { forwardPaddedInputs(model.program); });
}

/// Sets KernelRecord::sameAs of every kernel scheduled by default.
void markSharedStructures(PolyhedralModel &model) {
  std::map<std::string, size_t> first;
  for (size_t c = 0; c < model.kernels.size(); ++c) {
    KernelRecord &record = model.kernels[c];
    if (!record.byDefault)
      continue;
    auto [found, inserted] = first.try_emplace(
        ir::kernelStructure(model.program.calls[c].kernel).key + "\n" + choicesText(record.choices),
        c);
    if (!inserted)
      record.sameAs = found->second;
  }
}

/// Gives every kernel that shares nothing its own isl context, and every kernel that shares
/// that of the kernel it shares with.
void assignContexts(PolyhedralModel &model) {
  for (KernelRecord &record : model.kernels) {
    if (record.sameAs) {
      record.context = model.kernels[*record.sameAs].context;
      continue;
    }
    record.context = model.contexts.size();
    model.contexts.push_back(std::make_unique<poly::IslContext>());
  }
}

/// Calls work(c) for every kernel c that shares nothing with an earlier one (each has its own
/// isl context), up to in.jobs of them at a time; the pass's wall time goes to phase `phase`.
void forEachUnsharedKernel(PolyhedralModel &model, const PassInputs &in, const std::string &phase,
                           const std::function<void(size_t)> &work) {
  std::vector<size_t> unshared;
  for (size_t c = 0; c < model.kernels.size(); ++c)
    if (!model.kernels[c].sameAs)
      unshared.push_back(c);
  model.times.time(phase, [&] {
    ir::forEachInParallel(unshared.size(), in.jobs, [&](size_t u) { work(unshared[u]); });
  });
}

/// Builds the Scops of kernel `first` and of the kernels that share its structure, in its
/// context.
void buildScops(PolyhedralModel &model, size_t first) {
  const isl::ctx ctx = model.context(first);
  for (size_t c = first; c < model.kernels.size(); ++c)
    if (c == first || model.kernels[c].sameAs == first)
      model.kernels[c].scop = poly::buildScop(ctx, model.program.calls[c].kernel);
}

void scopPass(PolyhedralModel &model, const PassInputs &in) {
  markSharedStructures(model);
  assignContexts(model);
  forEachUnsharedKernel(model, in, "Scops", [&](size_t c) { buildScops(model, c); });
}

void dependencesPass(PolyhedralModel &model, const PassInputs &in) {
  forEachUnsharedKernel(model, in, "dependences", [&](size_t c) {
    model.kernels[c].dependences =
        poly::computeDependences(*model.kernels[c].scop, model.program.calls[c].kernel);
  });
  for (KernelRecord &record : model.kernels)
    if (record.sameAs)
      record.dependences = model.kernels[*record.sameAs].dependences;
}

/// Gives kernel `record` the default steps, refusals and schedule of `first`, the kernel of
/// its structure that the default trace scheduled.
void shareDefaultSchedule(KernelRecord &record, const KernelRecord &first) {
  record.trace.steps.insert(record.trace.steps.end(),
                            first.trace.steps.begin() + static_cast<long>(first.scheduledFrom),
                            first.trace.steps.end());
  record.trace.refused = first.trace.refused;
  record.scop->schedule = first.scop->schedule;
}

/// Schedules kernel `c`, which shares nothing: by the default trace or by its schedule entry.
void scheduleKernel(PolyhedralModel &model, const PassInputs &in, size_t c) {
  KernelRecord &record = model.kernels[c];
  if (record.byDefault) {
    ScheduledTrace rest =
        defaultSchedule(*record.scop, *record.dependences, model.program.calls[c].kernel,
                        record.trace.node, in.unit, record.choices);
    record.trace.steps.insert(record.trace.steps.end(), rest.trace.steps.begin(),
                              rest.trace.steps.end());
    record.trace.refused = std::move(rest.trace.refused);
    record.scop->schedule = rest.schedule;
  } else {
    record.scop->schedule =
        applyTrace(*record.scop, *record.dependences, record.trace, model.scheduleSource);
  }
}

void schedulePass(PolyhedralModel &model, const PassInputs &in) {
  for (KernelRecord &record : model.kernels)
    record.scheduledFrom = record.trace.steps.size();
  forEachUnsharedKernel(model, in, "schedule", [&](size_t c) { scheduleKernel(model, in, c); });
  for (KernelRecord &record : model.kernels)
    if (record.sameAs)
      shareDefaultSchedule(record, model.kernels[*record.sameAs]);
}

void astPass(PolyhedralModel &model, const PassInputs &in) {
  forEachUnsharedKernel(model, in, "isl AST", [&](size_t c) {
    model.kernels[c].ast = poly::generateAst(*model.kernels[c].scop);
  });
  for (KernelRecord &record : model.kernels)
    if (record.sameAs)
      record.ast = model.kernels[*record.sameAs].ast;
}

/// A pass: its name and summary, and the function that runs it.
struct PassDefinition {
  PipelinePass pass;
  void (*run)(PolyhedralModel &, const PassInputs &);
  /// Prints what the pass made (`nasc inspect --after`), compiler/PipelineDump.h.
  void (*print)(std::ostream &, const PolyhedralModel &, const std::string &node);
};

const std::vector<PassDefinition> &passDefinitions() {
  static const std::vector<PassDefinition> passes = {
      {{"neural-steps", "nas::applyNeuralSteps: the schedule's neural steps change the graph"},
       applyNeuralStepsPass,
       printGraph},
      {{"lower", "ir::lowerGraph: every op (a Conv fused with its residual Add and Relu) becomes "
                 "a Kernel of affine statements; each kernel gets its schedule entry"},
       lowerPass,
       printKernels},
      {{"layout", "layout steps per kernel: the default layout (pad_input, subsample_input, "
                  "block_channels) or the schedule entry's"},
       layoutPass,
       printKernelsAndTraces},
      {{"forward-blocked", "forwardBlockedLayouts: activations stay channel-blocked between "
                           "kernels that read them so"},
       forwardBlockedPass,
       printKernels},
      {{"forward-padded", "forwardPaddedInputs: a kernel writes its output into the padded "
                          "copy a later kernel's pad_input made of it, and that copy is dropped"},
       forwardPaddedPass,
       printKernels},
      {{"scop", "poly::buildScop: iteration domains, access relations, initial schedule (an isl "
                "context per kernel of its own structure; passes from here on run in parallel)"},
       scopPass,
       printScops},
      {{"dependences", "poly::computeDependences: flow, anti, output and reduction "
                       "dependences (shared by kernels of one structure)"},
       dependencesPass,
       printDependences},
      {{"schedule", "the default trace or the schedule entry's trace, every step checked "
                    "against the dependences"},
       schedulePass,
       printSchedules},
      {{"ast", "poly::generateAst: the isl AST of each kernel's schedule"}, astPass, printAsts},
  };
  return passes;
}

/// The definition of the pass named `name`. Throws Error naming the passes if there is none.
const PassDefinition &findPass(const std::string &name) {
  const std::vector<PassDefinition> &passes = passDefinitions();
  auto found = std::find_if(passes.begin(), passes.end(),
                            [&](const PassDefinition &d) { return d.pass.name == name; });
  if (found != passes.end())
    return *found;
  std::string names;
  for (const PassDefinition &d : passes)
    names += (names.empty() ? "" : ", ") + d.pass.name;
  throw Error("unknown pass '" + name + "' (the passes, in order: " + names + ")");
}

} // namespace

bool implementsNode(const ir::KernelCall &call, const std::string &node) {
  return call.kernel.name == node ||
         std::find(call.nodes.begin(), call.nodes.end(), node) != call.nodes.end();
}

ModelSchedule PolyhedralModel::schedule() const {
  ModelSchedule out{scheduleSource, replaced};
  for (const KernelRecord &record : kernels)
    out.kernels.push_back(record.trace);
  return out;
}

isl::ctx PolyhedralModel::context(size_t kernel) const {
  return contexts.at(kernels.at(kernel).context)->get();
}

std::vector<isl::ast_node> PolyhedralModel::asts() const {
  std::vector<isl::ast_node> out;
  for (const KernelRecord &record : kernels)
    out.push_back(record.ast.value());
  return out;
}

const std::vector<PipelinePass> &pipelinePasses() {
  static const std::vector<PipelinePass> passes = [] {
    std::vector<PipelinePass> out;
    for (const PassDefinition &definition : passDefinitions())
      out.push_back(definition.pass);
    return out;
  }();
  return passes;
}

PolyhedralModel lowerToPolyhedral(ir::Graph graph, const ModelSchedule &schedule,
                                  const codegen::VectorUnit &unit, const std::string &stopAfter,
                                  int jobs) {
  if (!stopAfter.empty())
    findPass(stopAfter);
  PolyhedralModel model;
  model.graph = std::move(graph);
  model.scheduleSource = schedule.source.empty() ? "default schedule" : schedule.source;
  const PassInputs inputs{schedule, unit, jobs};
  for (const PassDefinition &definition : passDefinitions()) {
    definition.run(model, inputs);
    if (definition.pass.name == stopAfter)
      break;
  }
  return model;
}

void printAfterPass(std::ostream &out, const PolyhedralModel &model, const std::string &pass,
                    const std::string &node) {
  findPass(pass).print(out, model, node);
}

codegen::GeneratedCode generateCode(const PolyhedralModel &model, const CompileOptions &options) {
  return codegen::GeneratedCode(model.program, model.asts(), options.symbolPrefix, options.target,
                                options.profile, options.jobs);
}

} // namespace nasc::compiler
