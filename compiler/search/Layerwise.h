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
#include <map>
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
  /// The capacity gate's layer weight floor (nas::GateParams::layerWeightFloor) that
  /// compositions keep: 0 for none.
  double weightFloor = 0;
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
  ///    With options.weightFloor, the groups, largest first, take their chosen step only when
  ///    every conv layer then keeps at least that fraction of its weights (nas::convLayerWeights;
  ///    a layer's fraction under several groups' steps taken as the product of the fractions each
  ///    group's step alone leaves it, exact for the registry's steps, which scale a Conv's
  ///    output channels, input channels or group), else their next fastest step passing, or
  ///    none: the gate would refuse the whole network for a layer its steps stack below the
  ///    floor (bottleneck of a block's first conv with group of its second).
  /// A composition with no step yet is a candidate without steps. Deterministic for a given
  /// history and `rng` state.
  Candidate propose(int64_t index, const std::vector<Scored> &history, double baselineSeconds,
                    std::mt19937_64 &rng) const;

private:
  /// The composition of `choice` (per layer step group, the index into its ranked steps, or
  /// none) applied to the original.
  Candidate compose(const std::vector<std::vector<const LayerStep *>> &ranked,
                    std::vector<size_t> choice) const;

  /// `choice` with each group, largest first, moved to its first ranked step from its choice on
  /// that keeps options_.weightFloor with the groups before it, or to none.
  void keepWeightFloor(const std::vector<std::vector<const LayerStep *>> &ranked,
                       std::vector<size_t> &choice) const;

  /// Per conv layer (nas::convLayerWeights name), the fraction of its weights that `step`
  /// applied to every member of its group leaves it; computed once per step.
  const std::map<std::string, double> &weightFractions(const LayerStep &step) const;

  const ir::Graph &original_;
  std::vector<std::string> searchable_; ///< searchableConvs(original_), computed once.
  LayerwiseOptions options_;
  std::vector<LayerStep> layerSteps_;
  std::vector<size_t> groupOf_; ///< Per layer step, its group's index (first-seen order).
  size_t groups_ = 0;
  std::map<std::string, int64_t> originalWeights_; ///< nas::convLayerWeights(original_).
  /// weightFractions by step (LayerStep::step text); filled as compositions need them.
  mutable std::map<std::string, std::map<std::string, double>> fractions_;
};

} // namespace nasc::search
