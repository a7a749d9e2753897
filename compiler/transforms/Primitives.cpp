#include "compiler/transforms/Primitives.h"

#include "compiler/nas/NeuralRegistry.h"
#include "compiler/transforms/BlockChannels.h"
#include "compiler/transforms/DefaultSchedule.h"
#include "compiler/transforms/Fuse.h"
#include "compiler/transforms/Interchange.h"
#include "compiler/transforms/PadInput.h"
#include "compiler/transforms/Parallelize.h"
#include "compiler/transforms/Split.h"
#include "compiler/transforms/SubsampleInput.h"
#include "compiler/transforms/Tile.h"
#include "compiler/transforms/Unroll.h"
#include "compiler/transforms/Vectorize.h"
#include "polyhedral/ParallelLoops.h"

namespace nasc::compiler {

namespace {

const std::string &statement(const ScheduleStep &step) { return step.statements.at(0); }

isl::schedule applyInterchange(const poly::Scop &scop, const poly::Dependences &deps,
                               const ScheduleStep &step) {
  return interchange(scop, deps, statement(step), step.list("order"));
}

isl::schedule applySplit(const poly::Scop &scop, const poly::Dependences &deps,
                         const ScheduleStep &step) {
  return split(scop, deps, statement(step), step.scalar("member"), step.scalar("factor"),
               step.scalar("band"));
}

isl::schedule applyTile(const poly::Scop &scop, const poly::Dependences &deps,
                        const ScheduleStep &step) {
  return tile(scop, deps, statement(step), step.list("sizes"), step.scalar("band"));
}

isl::schedule applyParallelize(const poly::Scop &scop, const poly::Dependences &deps,
                               const ScheduleStep &step) {
  return parallelize(scop, deps, statement(step), step.scalar("member"), step.scalar("band"));
}

isl::schedule applyFuse(const poly::Scop &scop, const poly::Dependences &deps,
                        const ScheduleStep &step) {
  return fuse(scop, deps, step.statements, step.scalar("depth"));
}

isl::schedule applyUnroll(const poly::Scop &scop, const poly::Dependences &deps,
                          const ScheduleStep &step) {
  return unroll(scop, deps, statement(step), step.scalar("member"), step.scalar("factor"),
                step.scalar("band"));
}

isl::schedule applyVectorize(const poly::Scop &scop, const poly::Dependences &deps,
                             const ScheduleStep &step) {
  return vectorize(scop, deps, statement(step), step.scalar("member"), step.scalar("width"),
                   step.scalar("band"));
}

void applyPadInput(ir::Program &program, size_t call, const ScheduleStep &step) {
  padInput(program, call, statement(step));
}

void applySubsampleInput(ir::Program &program, size_t call, const ScheduleStep &step) {
  subsampleInput(program, call, statement(step));
}

void applyBlockChannels(ir::Program &program, size_t call, const ScheduleStep &step) {
  blockChannels(program, call, statement(step), step.scalar("block"), step.scalar("input_block"));
}

ArgumentSpec scalarArg(const std::string &name) { return {name, false, std::nullopt}; }
ArgumentSpec listArg(const std::string &name) { return {name, true, std::nullopt}; }
ArgumentSpec bandArg() { return {"band", false, 0}; }

/// The default_trace step's arguments: every TraceChoices member, 0 when left out.
std::vector<ArgumentSpec> choiceArgs() {
  std::vector<ArgumentSpec> args;
  for (const TraceChoiceMember &member : kTraceChoiceMembers)
    args.push_back({member.name, false, 0});
  return args;
}

std::vector<PrimitiveSpec> makePrimitives() {
  return {
      {"interchange", false, {listArg("order")}, applyInterchange},
      {"split", false, {scalarArg("member"), scalarArg("factor"), bandArg()}, applySplit},
      {"tile", false, {listArg("sizes"), bandArg()}, applyTile},
      {"fuse", true, {scalarArg("depth")}, applyFuse},
      {"unroll", false, {scalarArg("member"), scalarArg("factor"), bandArg()}, applyUnroll},
      {"vectorize", false, {scalarArg("member"), {"width", false, 0}, bandArg()}, applyVectorize},
      {"parallelize", false, {scalarArg("member"), bandArg()}, applyParallelize},
      {"pad_input", false, {}, nullptr, applyPadInput},
      {"subsample_input", false, {}, nullptr, applySubsampleInput},
      {"block_channels",
       false,
       {scalarArg("block"), {"input_block", false, 0}},
       nullptr,
       applyBlockChannels},
      {kDefaultTracePrimitive, false, choiceArgs(), nullptr, nullptr, false, true},
  };
}

/// The schedule primitives, then one neural primitive per neural transformation, its arguments
/// the transformation's parameters (compiler/nas/NeuralRegistry.h).
std::vector<PrimitiveSpec> makeTable() {
  std::vector<PrimitiveSpec> table = makePrimitives();
  for (const nas::NeuralTransform &t : nas::neuralTransforms())
    table.push_back({t.name, false, t.parameters, nullptr, nullptr, true});
  return table;
}

} // namespace

const std::vector<PrimitiveSpec> &primitives() {
  static const std::vector<PrimitiveSpec> table = makeTable();
  return table;
}

const PrimitiveSpec *findPrimitive(const std::string &name) {
  for (const PrimitiveSpec &spec : primitives())
    if (spec.name == name)
      return &spec;
  return nullptr;
}

isl::schedule applyStep(const poly::Scop &scop, const poly::Dependences &deps,
                        const ScheduleStep &step) {
  const PrimitiveSpec *spec = findPrimitive(step.primitive);
  if (!spec)
    throw Error("unknown schedule primitive '" + step.primitive + "'");
  if (!spec->namesStatements())
    return scop.schedule;
  if (step.statements.empty())
    throw Error(step.primitive + ": no statement given");
  if (!spec->apply)
    return scop.schedule;
  isl::schedule schedule = spec->apply(scop, deps, step);
  if (poly::hasParallelMarkOverDegenerateLoop(schedule))
    throw SingleIteration(step.primitive + " of statement '" + step.statements[0] +
                          "': it leaves a parallel loop with at most one iteration (isl's AST "
                          "drops it, so the parallel mark would fall on the loop below)");
  return schedule;
}

void applyLayoutSteps(ir::Program &program, size_t call, const KernelSchedule &trace,
                      const std::string &source) {
  for (size_t i = 0; i < trace.steps.size(); ++i) {
    const PrimitiveSpec *spec = findPrimitive(trace.steps[i].primitive);
    if (!spec || !spec->applyLayout)
      continue;
    try {
      if (trace.steps[i].statements.empty())
        throw Error(spec->name + ": no statement given");
      spec->applyLayout(program, call, trace.steps[i]);
    } catch (const Error &e) {
      throwScheduleStepError(source, trace, i, e);
    }
  }
}

isl::schedule applyTrace(const poly::Scop &scop, const poly::Dependences &deps,
                         const KernelSchedule &trace, const std::string &source) {
  poly::Scop current = scop;
  for (size_t i = 0; i < trace.steps.size(); ++i) {
    try {
      current.schedule = applyStep(current, deps, trace.steps[i]);
    } catch (const Error &e) {
      throwScheduleStepError(source, trace, i, e);
    }
  }
  return current.schedule;
}

} // namespace nasc::compiler
