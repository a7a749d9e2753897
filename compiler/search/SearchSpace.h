// The space nasc search explores (docs/search.md, "Search space"): for each Conv of a network, the
// neural steps the registry offers (NeuralTransform::choices), drawn at random into candidates.
#pragma once

#include "compiler/nas/NeuralStep.h"
#include "ir/Graph.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace nasc::search {

/// The Conv nodes of `graph` (static shapes) a search may transform, in graph order: those whose
/// weight is an initializer only they read (nas::convLayer accepts them).
std::vector<std::string> searchableConvs(const ir::Graph &graph);

/// Every neural step the registry offers for Conv `node` of `graph`: each transformation's
/// NeuralTransform::choices, in registry order; only those of the transformations named in
/// `transforms` when it is not empty (`nasc search --transforms`). Throws nasc::Error when `node`
/// is not such a Conv.
std::vector<nas::NeuralStep> stepChoices(const ir::Graph &graph, const std::string &node,
                                         const std::vector<std::string> &transforms = {});

/// A uniform draw in [0, 1) from 53 bits of `rng` (the same on every platform, unlike
/// std::uniform_real_distribution).
double uniform(std::mt19937_64 &rng);

/// An index below `count` (> 0) drawn uniformly from `rng`: uniform(rng) · count, rounded down.
size_t uniformIndex(std::mt19937_64 &rng, size_t count);

/// A candidate architecture: the neural steps applied in order, the graph they give, and the
/// structural refusals (RefusedTransformation messages) of the steps drawn but dropped.
struct Candidate {
  std::vector<nas::NeuralStep> steps;
  ir::Graph graph;
  std::vector<std::string> refusals;
};

/// Applies `step` to candidate.graph and appends it to candidate.steps; when the rewrite refuses
/// it (nas::RefusedTransformation) nothing changes but the reason appended to candidate.refusals,
/// and the result is false. Throws the other errors of nas::applyNeuralStep.
bool addStep(Candidate &candidate, const nas::NeuralStep &step);

/// Draws a candidate from `original` (static shapes, ir::prepareForTraining) with `rng`: a
/// density ρ uniform in [0, 1); each searchable Conv, in graph order, gets with probability ρ a
/// step drawn uniformly from its stepChoices and then, with probability ρ / 2, a second one on
/// the same node if it is still a Conv (a sequence of two steps). A step the rewrite refuses
/// is dropped and its reason kept in `refusals`; steps of `transforms` only (stepChoices).
/// Deterministic for a given `rng` state.
Candidate sampleCandidate(const ir::Graph &original, std::mt19937_64 &rng,
                          const std::vector<std::string> &transforms = {});

/// The generator of candidate `index` of a search seeded `seed`: each candidate has its own
/// stream, so a resumed search draws exactly what an uninterrupted one would.
std::mt19937_64 candidateRng(uint64_t seed, int64_t index);

} // namespace nasc::search
