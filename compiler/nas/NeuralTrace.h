// Neural steps inside schedule traces: a kernel's trace may start with neural transformations of
// its node (group, bottleneck, ...), applied to the graph before the model is lowered, so one
// trace describes both what a layer computes and how it is scheduled.
#pragma once

#include "compiler/nas/NeuralStep.h"
#include "compiler/transforms/ScheduleTrace.h"
#include "ir/Graph.h"

#include <string>
#include <vector>

namespace nasc::nas {

/// Whether `step` names a neural primitive (compiler/transforms/Primitives.h).
bool isNeuralStep(const compiler::ScheduleStep &step);

/// Whether `trace` has steps and all of them are neural: its kernel is scheduled by the default
/// trace after them.
bool onlyNeuralSteps(const compiler::KernelSchedule &trace);

/// The transformation a neural schedule step of the trace of `node` applies: its arguments in
/// the primitive's order (seq1's list `groups` spread out), e.g. {"conv1", "seq2", {4, 2}}.
NeuralStep toNeuralStep(const std::string &node, const compiler::ScheduleStep &step);

/// The schedule step of `step` (arguments named as the primitive names them; no capacity
/// record). Throws nasc::Error for a transformation with no neural primitive.
compiler::ScheduleStep toScheduleStep(const NeuralStep &step);

/// `steps` as a schedule (docs/schedules.md) named `source`: one entry per node, in the order of
/// its first step, the node's steps in order; `capacity` (a gate record, or "") on the last step.
/// applyNeuralSteps of it applies `steps`.
compiler::ModelSchedule neuralSchedule(const std::vector<NeuralStep> &steps,
                                       const std::string &source, const std::string &capacity);

/// Applies the neural steps of `schedule` to `graph` (static shapes, e.g. ir::loadModel's):
/// entry by entry in file order, the steps of each entry that come before its first schedule
/// step, through applyNeuralStep (weights sliced, shapes inferred again). Throws
/// StaleScheduleStep naming the schedule file, the node and the step (1-based) when a neural
/// step follows a schedule step of its entry, or when the transformation is refused (the
/// refusal's message included).
void applyNeuralSteps(ir::Graph &graph, const compiler::ModelSchedule &schedule);

} // namespace nasc::nas
