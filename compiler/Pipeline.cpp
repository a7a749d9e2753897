#include "compiler/Pipeline.h"

#include "compiler/nas/NeuralTrace.h"
#include "compiler/transforms/DefaultSchedule.h"
#include "compiler/transforms/ForwardBlocked.h"
#include "compiler/transforms/Primitives.h"
#include "ir/lower/Lower.h"

#include <algorithm>
#include <map>

namespace nasc::compiler {

namespace {

bool implements(const ir::KernelCall &call, const std::string &node) {
  return call.kernel.name == node ||
         std::find(call.nodes.begin(), call.nodes.end(), node) != call.nodes.end();
}

std::string kernelNode(const ir::KernelCall &call) {
  return call.nodes.empty() ? call.kernel.name : call.nodes.front();
}

/// For each call, the index of the entry of `schedule` naming it, or -1. Entries of only neural
/// steps whose node they replaced (seq1, seq2, seq3) match no call and go to `replaced`.
std::vector<int> matchSchedule(const ir::Program &program, const ModelSchedule &schedule,
                               std::vector<KernelSchedule> &replaced) {
  std::vector<int> entry(program.calls.size(), -1);
  for (size_t e = 0; e < schedule.kernels.size(); ++e) {
    const std::string &node = schedule.kernels[e].node;
    auto call = std::find_if(program.calls.begin(), program.calls.end(),
                             [&](const ir::KernelCall &c) { return implements(c, node); });
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

/// The first kernel of a structure (ir::kernelStructure) that got the default schedule, and the
/// steps the default trace gave it: every later kernel of that structure has the same
/// dependences, default trace, schedule and AST (the statements' names and domains, which they
/// are about, are the same; only tensor names differ).
struct DefaultScheduled {
  size_t call;
  std::vector<ScheduleStep> steps;
  std::vector<RefusedStep> refused;
};

/// Schedules the next kernel of `model` (Scop `scop`, trace `trace` so far: its neural and
/// layout steps) as `first`, whose structure it has: its dependences, steps, schedule and AST.
void reuseDefaultSchedule(PolyhedralModel &model, const DefaultScheduled &first, poly::Scop scop,
                          KernelSchedule trace) {
  model.dependences.push_back(model.dependences[first.call]);
  trace.steps.insert(trace.steps.end(), first.steps.begin(), first.steps.end());
  trace.refused = first.refused;
  scop.schedule = model.scops[first.call].schedule;
  model.asts.push_back(model.asts[first.call]);
  model.scops.push_back(std::move(scop));
  model.schedule.kernels.push_back(std::move(trace));
}

} // namespace

PolyhedralModel lowerToPolyhedral(ir::Graph graph, const ModelSchedule &schedule,
                                  const codegen::VectorUnit &unit) {
  PolyhedralModel model;
  model.isl = std::make_unique<poly::IslContext>();
  ir::PassTimes &times = model.times;
  times.time("neural steps", [&] { nas::applyNeuralSteps(graph, schedule); });
  model.program = times.time("lowering to kernels", [&] { return ir::lowerGraph(graph); });
  model.graph = std::move(graph);
  model.schedule.source = schedule.source.empty() ? "default schedule" : schedule.source;
  std::vector<int> entries = matchSchedule(model.program, schedule, model.schedule.kernels);
  std::vector<KernelSchedule> traces;
  std::vector<bool> byDefault;
  std::vector<TraceChoices> choices;
  for (size_t c = 0; c < model.program.calls.size(); ++c) {
    traces.push_back(entries[c] >= 0 ? schedule.kernels[static_cast<size_t>(entries[c])]
                                     : KernelSchedule{kernelNode(model.program.calls[c]), {}});
    byDefault.push_back(entries[c] < 0 || scheduledByDefault(traces.back(), model.schedule.source));
    choices.push_back(traceChoices(traces.back(), model.schedule.source));
    if (byDefault.back())
      std::erase_if(traces.back().steps, [](const ScheduleStep &step) {
        return step.primitive == kDefaultTracePrimitive;
      });
    times.time("layout steps", [&] {
      if (byDefault.back()) {
        std::vector<ScheduleStep> layout =
            applyDefaultLayout(model.program, c, unit, choices.back());
        traces.back().steps.insert(traces.back().steps.end(), layout.begin(), layout.end());
      } else {
        applyLayoutSteps(model.program, c, traces.back(), model.schedule.source);
      }
    });
  }
  times.time("layout steps", [&] { forwardBlockedLayouts(model.program); });
  std::map<std::string, DefaultScheduled> defaults;
  for (size_t c = 0; c < model.program.calls.size(); ++c) {
    KernelSchedule &trace = traces[c];
    const ir::KernelCall &call = model.program.calls[c];
    poly::Scop scop =
        times.time("Scops", [&] { return poly::buildScop(model.isl->get(), call.kernel); });
    auto [same, first] = byDefault[c] ? defaults.try_emplace(ir::kernelStructure(call.kernel).key +
                                                                 "\n" + choicesText(choices[c]),
                                                             DefaultScheduled{c, {}, {}})
                                      : std::make_pair(defaults.end(), true);
    if (!first) {
      reuseDefaultSchedule(model, same->second, scop, trace);
      continue;
    }
    model.dependences.push_back(
        times.time("dependences", [&] { return poly::computeDependences(scop, call.kernel); }));
    if (byDefault[c]) {
      ScheduledTrace rest = times.time("default trace", [&] {
        return defaultSchedule(scop, model.dependences.back(), call.kernel, trace.node, unit,
                               choices[c]);
      });
      trace.steps.insert(trace.steps.end(), rest.trace.steps.begin(), rest.trace.steps.end());
      trace.refused = rest.trace.refused;
      scop.schedule = rest.schedule;
      same->second.steps = std::move(rest.trace.steps);
      same->second.refused = std::move(rest.trace.refused);
    } else {
      scop.schedule = times.time("schedule trace", [&] {
        return applyTrace(scop, model.dependences.back(), trace, model.schedule.source);
      });
    }
    model.asts.push_back(times.time("isl AST", [&] { return poly::generateAst(scop); }));
    model.scops.push_back(std::move(scop));
    model.schedule.kernels.push_back(std::move(trace));
  }
  return model;
}

codegen::GeneratedCode generateCode(const PolyhedralModel &model, const CompileOptions &options) {
  return codegen::GeneratedCode(model.program, model.asts, options.symbolPrefix, options.target,
                                options.profile);
}

} // namespace nasc::compiler
