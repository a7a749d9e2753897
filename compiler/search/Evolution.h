// nasc search's "evolution" strategy (docs/search.md): candidates bred from the fastest measured
// ones and chosen by a cost model fitted on the measurements so far (CostModel.h).
#pragma once

#include "compiler/nas/NeuralStep.h"
#include "compiler/search/CostModel.h"
#include "compiler/search/SearchSpace.h"
#include "ir/Graph.h"

#include <cstddef>
#include <random>
#include <vector>

namespace nasc::search {

/// A candidate a search tried and what became of it. Candidates without steps (nothing drawn)
/// tell nothing of the steps and are left out of a history.
struct Scored {
  enum class Outcome {
    Measured, ///< Passed the gate, every layer measured: `seconds` is its estimate.
    Refused,  ///< The capacity gate refused it.
    Failed    ///< Passed the gate, but a layer failed to compile or run, or computed wrongly.
  };
  std::vector<nas::NeuralStep> steps; ///< In the order they were applied (as drawn).
  Outcome outcome = Outcome::Refused;
  double seconds = 0; ///< The estimate (s, > 0) when Measured; unused otherwise.
};

/// The parameters of proposeCandidate.
struct EvolutionOptions {
  size_t warmup = 16;     ///< Measured candidates needed before the cost model is used (>= 1).
  size_t gateWarmup = 8;  ///< Judged candidates needed before warm-up draws are gate-ranked.
  size_t draws = 8;       ///< sampleCandidate draws a gate-ranked warm-up proposal ranks (>= 1).
  double epsilon = 0.1;   ///< Probability that a proposal is a sampleCandidate draw anyway.
  size_t population = 32; ///< The most recent measured candidates parents come from (aging).
  size_t tournament = 4;  ///< Candidates drawn per tournament; the fastest is the parent.
  double crossover = 0.5; ///< Probability that a child has a second parent.
  size_t pool = 64;       ///< Children the cost model ranks per proposal.
  /// The transformations its draws and mutations take steps of (stepChoices); empty: all.
  std::vector<std::string> transforms;
  CostModelOptions model; ///< Of both the regressor and the classifier.
};

/// The next candidate of a search of `original` (static shapes, ir::prepareForTraining) after
/// `history` (every candidate so far with steps, oldest first):
///  1. with fewer than options.warmup Measured entries, or with probability options.epsilon
///     (drawn from `rng` only once warmed up), a sampleCandidate draw; in the warm-up, once
///     the history holds options.gateWarmup entries of which some passed the gate and some
///     did not, one of options.draws sampleCandidate draws (those with steps): of those the
///     classifier of step 3 gives P(pass) >= 1/2 the one of least FLOP (nas::modelCost), else
///     the one of highest P(pass), the first of equal ones: the gate refuses most uniform
///     draws, and nothing is measured yet to rank them by time;
///  2. otherwise children's steps, up to options.pool distinct ones in at most 4·pool tries: a
///     parent chosen by tournament (the fastest of options.tournament entries drawn uniformly,
///     with repetition, from the options.population most recent Measured ones: Real et al.,
///     "Regularized Evolution for Image Classifier Architecture Search", AAAI 2019), with
///     probability options.crossover a second one the same way; Conv by Conv (searchableConvs
///     order) the child takes the steps the Conv has in a parent (with two parents either one's
///     with probability 1/2: uniform crossover), then with probability 1/N (N searchable Convs)
///     mutates them: removed (probability 1/2, when there are any) or replaced by one step drawn
///     uniformly from the Conv's stepChoices on `original`. Children without steps, or with the
///     steps (same order) of a history entry or of another child, are skipped;
///  3. two CostModels on the CandidateFeatures of the history's steps: a regressor of
///     ln(seconds) of the Measured entries and a classifier of passing the gate (Measured and
///     Failed 1, Refused 0); the children ranked by predicted ln(seconds) − ln(max(P(pass),
///     1e-6)), equal ones in the order they were bred: the model-guided choice among
///     candidates of AutoTVM (Chen et al., "Learning to Optimize Tensor Programs", NeurIPS
///     2018), weighted by the gate's predicted verdict;
///  4. the first ranked child that, its steps applied to `original` (addStep, a Conv's steps
///     dropped from the first one the rewrite refuses, the reasons in `refusals`), still has
///     steps and differs from every history entry; a sampleCandidate draw when none does.
/// Only that child's graph is built: applying steps copies the graph and its weights. Deterministic
/// for a given `rng` state and history. Throws nasc::Error when options.population, tournament,
/// pool or draws is 0, and as CandidateFeatures and CostModel do (a history step not on a
/// searchable Conv of `original`, an XGBoost failure).
Candidate proposeCandidate(const ir::Graph &original, const std::vector<Scored> &history,
                           std::mt19937_64 &rng, const EvolutionOptions &options = {});

} // namespace nasc::search
