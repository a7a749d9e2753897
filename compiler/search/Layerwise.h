// nasc search's "layerwise" strategy (docs/search.md, "Strategies"): each step a group of Convs
// (one workload in one place) offers is first tried alone, on one Conv of that group (judged by
// the capacity gate, its layers measured), and networks are composed of the fastest steps that
// passed alone, one per group, applied to every Conv of the group. Turner et al. (ASPLOS 2021, §5)
// judge each layer's transformation on its own in the same way; the gate then judges the whole
// network.
#pragma once

#include "compiler/nas/NeuralStep.h"
#include "compiler/search/Evolution.h"
#include "compiler/search/SearchSpace.h"
#include "ir/Graph.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace nasc::search {

/// A step one group of Convs offers (one workload, ConvWorkload::key, in one place: the op types
/// reading the Conv's output past its BN and elementwise ops, nas::expansionPoint), tried alone on
/// the first Conv of the group.
struct LayerStep {
  nas::NeuralStep step;             ///< On members.front().
  std::vector<std::string> members; ///< The group's searchable Convs, in graph order.
};

/// The parameters of Layerwise.
struct LayerwiseOptions {
  int64_t period = 8;   ///< While steps are still untried, every period-th candidate is composed.
  double perturb = 0.2; ///< Probability that a perturbed composition changes a group's step.
  int tries = 16;       ///< Perturbed compositions drawn before one new to the history is found.
  std::vector<std::string> transforms; ///< Whose steps it tries (stepChoices); empty: all.
};

/// The layerwise strategy of a search of one original network.
class Layerwise {
public:
  /// The layer steps of `original` (static shapes, ir::prepareForTraining; it must outlive this
  /// object): for each group (workload and place) of its searchable Convs (searchableConvs,
  /// convWorkloads), the groups by their Convs' total FLOP, largest first, each one's stepChoices
  /// on its first Conv in registry order, except those that, applied to that Conv's workload
  /// graph alone, leave its FLOP unchanged (seq3); taken round-robin: each group's first step,
  /// largest group first, then each one's second, and so on, so that the first compositions
  /// already change every group (a short budget tries a few steps of each, not every step of
  /// the largest). A step that graph refuses is kept (bottleneck
  /// refuses a Conv whose value is a graph output; in the network its consumers decide). Throws as
  /// stepChoices and convWorkloads do.
  explicit Layerwise(const ir::Graph &original, LayerwiseOptions options = {});

  /// The layer steps in the order they are tried.
  const std::vector<LayerStep> &layerSteps() const { return layerSteps_; }

  /// Candidate `index` after `history` (the search's candidates with steps, oldest first):
  ///  - while layer steps are untried, layer step index − index / period alone, except that
  ///    every period-th candidate (index % period == period − 1) is a composition;
  ///  - a composition: each group takes the step of least estimate among its layer steps
  ///    that the history holds alone, Measured, with an estimate below `baselineSeconds` (the
  ///    original's estimate), applied to each of its Convs in graph order (addStep: a step a
  ///    Conv refuses is dropped, its reason kept). When the history already holds that
  ///    composition, each group's choice is perturbed instead, drawing from `rng`: with
  ///    probability options.perturb its second fastest step (none when it has one), with the
  ///    same probability none; up to options.tries draws for one the history does not hold.
  /// A composition with no step yet is a candidate without steps. Deterministic for a given
  /// history and `rng` state.
  Candidate propose(int64_t index, const std::vector<Scored> &history, double baselineSeconds,
                    std::mt19937_64 &rng) const;

private:
  /// The composition of `choice` (per layer step group, the index into its ranked steps, or
  /// none) applied to the original.
  Candidate compose(const std::vector<std::vector<const LayerStep *>> &ranked,
                    const std::vector<size_t> &choice) const;

  const ir::Graph &original_;
  std::vector<std::string> searchable_; ///< searchableConvs(original_), computed once.
  LayerwiseOptions options_;
  std::vector<LayerStep> layerSteps_;
  std::vector<size_t> groupOf_; ///< Per layer step, its group's index (first-seen order).
  size_t groups_ = 0;
};

} // namespace nasc::search
