// The capacity gate (docs/capacity.md, "Capacity gate"): measures the proxies of an ORIGINAL model
// and of transformed NEW ones, in memory, and decides by a policy whether NEW keeps the capacity of
// ORIGINAL. Measuring and deciding are separate, so decisions are pure functions.
#pragma once

#include "compiler/nas/FisherMeasurement.h"
#include "compiler/nas/ShortTraining.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace nasc::nas {

enum class Policy { Paper, FisherLayer, FisherSeeds, Synflow, JacobCov, TrainLoss, Vote };

/// The CLI names, in the order of Policy: paper, fisher-layer, fisher-seeds, synflow, jacob_cov,
/// train-loss, vote.
const std::vector<std::string> &policyNames();

/// The name of `policy` (policyNames).
const std::string &policyName(Policy policy);

/// The policy called `name`; throws nasc::Error listing the names otherwise.
Policy parsePolicy(const std::string &name);

/// The policy used when none is given: synflow, chosen by the project's validation against
/// trained accuracy (tools/capacity_validation.py, docs/capacity.md "Validation"): of the
/// policies, the only one with Kendall tau >= 0.5 for its proxy (synflow +0.71) that gets >= 80%
/// of the "keeps accuracy within 1 point" decisions right (12 of 13 with its tolerance, 11 of 13
/// when the tolerance is chosen without the judged variant).
inline constexpr Policy kDefaultPolicy = Policy::Synflow;

/// Default tolerances of the policies that compare in log space or loss units (`--tolerance`
/// overrides the selected policy's):
///  - synflow: 6.5 in natural log, NEW may have up to a factor e^6.5 less synflow. Synflow is a
///    product over the layers, so a transformation of every block conv moves it by several
///    units: on the validation ResNet-8 the variants that kept their accuracy reached -5.0, those
///    that lost more than a point -7.8 and below (one exception, bottleneck(8) at -3.1); 6.5
///    sits between them;
///  - jacob_cov: 5.0, NEW's NASWOT log-determinant may be up to 5 lower;
///  - train-loss: 0.05 nats of mean cross-entropy more.
inline const std::map<Policy, double> kDefaultTolerances = {
    {Policy::Synflow, 6.5}, {Policy::JacobCov, 5.0}, {Policy::TrainLoss, 0.05}};

/// Default of GateParams::synflowShareTolerance: with the synflow policy, no Conv layer of both
/// models may see its share of the network's synflow fall by more than a factor e^1.0. Synflow
/// (its total a sum over the layers of each layer's Σ |W ⊙ dR/dW|, the flow through it) is
/// dominated by the longest paths: every main-path conv of a ResNet carries about R, a 1x1
/// shortcut projection about 1% of it, so grouping a projection moves the total by 0.02 in ln
/// (CIFAR ResNet-18, group(8/64/128) of its three projections) while the projection's share falls
/// by ln 8, ln 64 and ln 128 (2.09, 4.13, 4.84); main-path steps move shares by at most 0.1
/// (group(4) of every block conv). On that network those projections cost 6.6 points of accuracy
/// at equal training alone and 9.0 on top of the searched steps, all admitted by the total
/// (docs/capacity.md, "Validation at full width"); 1.0 lies between the two kinds.
inline constexpr double kSynflowShareTolerance = 1.0;

/// Default of GateParams::layerWeightFloor: with the synflow policy, every convolution layer of
/// the original (matched by the value it produces, convLayerWeights) keeps at least a quarter of
/// its weights. Synflow cannot see how steps stacked on one block compound: every main-path conv
/// carries about the whole flow R (Tanaka et al. 2020, conservation of synaptic saliency), so its
/// ln ratio is a sum of per-layer falls, and on the full-width CIFAR ResNet-18 bottleneck(4) of
/// each block's first conv with group(2) of its second (conv2 at 1/8 of its weights) lost 3.5
/// points at exactly the ln ratio (−11.0) of group(2) of both convs (1/2 each), which lost 0.4
/// (docs/capacity.md, "Validation at full width"). There and on the validation ResNet-8, the
/// variants with a layer below a quarter lost 2.3 points and more (one exception: depthwise in
/// one block, −0.4), those at exactly a quarter 1.0-1.6, those above it at most 0.9.
inline constexpr double kLayerWeightFloor = 0.25;

/// The names of the proxies in a CapacityProfile, in report order: fisher, synflow, jacob_cov,
/// snip, grad_norm (measureFisher totals, means over the seeds; synflow's is its natural log,
/// ln of the mean over the seeds, FisherMeasurement.h logMeanStd), train_loss
/// (measureShortTraining), params and flops (modelCost of the model as loaded, before BN
/// insertion; flops divided by the batch dim: one image).
const std::vector<std::string> &capacityProxyNames();

/// Everything measured on one model.
struct CapacityProfile {
  std::map<std::string, double> proxies;       ///< By capacityProxyNames name ("synflow": ln).
  std::map<std::string, double> fisherLayers;  ///< Mean Fisher Potential per Conv output name.
  std::map<std::string, double> synflowLayers; ///< ln of the mean synflow per Conv output name.
  std::map<std::string, int64_t> layerWeights; ///< convLayerWeights of the model.
  std::vector<double> fisherRuns;              ///< Fisher Potential total of each seed, in order.
};

/// Thresholds of the policies: theta for the Fisher policies, a tolerance per log/loss policy, the
/// synflow policy's share tolerance (kSynflowShareTolerance, in natural log) and layer weight
/// floor (kLayerWeightFloor, a fraction); and whether the gate applies the spatial-expansion rule
/// (ExpansionRule.h) before any policy.
struct GateParams {
  double theta = 1.0;
  std::map<Policy, double> tolerances = kDefaultTolerances;
  double synflowShareTolerance = kSynflowShareTolerance;
  double layerWeightFloor = kLayerWeightFloor;
  bool expansionRule = true;
};

/// One policy's verdict; `reason` is a sentence naming the proxy and both values.
struct Decision {
  Policy policy = kDefaultPolicy;
  bool legal = false;
  std::string reason;
};

/// Decides `policy` on measured profiles:
///  - paper: FP(new) >= θ·FP(original), FP the Fisher Potential total (Turner et al. 2021);
///  - fisher-layer: min over the Conv layers of NEW also in ORIGINAL (matched by name; layers
///    with FP_l(original) <= 0 skipped) of FP_l(new) / FP_l(original) >= θ; refused when no
///    layer matches;
///  - fisher-seeds: FP_s(new) >= θ·FP_s(original) for more than half of the paired seeds s;
///  - synflow (the profiles hold ln values, so every comparison is a difference): n − o >=
///    −tolerance, o and n the two ln synflow totals, and for every Conv layer l in both
///    synflowLayers with finite values (a layer with S_l = 0 is −infinity and skipped), its share
///    S_l / synflow falls by at most the share tolerance: (ln S_l(new) − n) − (ln S_l(original) −
///    o) >= −synflowShareTolerance (profiles without synflowLayers: the total alone), and every
///    layer of both layerWeights keeps at least layerWeightFloor of its original weights; refused
///    ("a synflow is 0 (ln -inf) or not a number, so no log-ratio") when a total is not finite,
///    e.g. −infinity for a network through which nothing flows, as the linear gate refused a
///    total that was not positive;
///  - jacob_cov: jacob_cov(new) − jacob_cov(original) >= −tolerance (both already log|det K|;
///    −∞ (a singular K) is only legal against −∞);
///  - train-loss: train_loss(new) <= train_loss(original) + tolerance;
///  - vote: at least two of synflow, jacob_cov and train-loss legal.
/// Throws nasc::Error when a profile lacks a proxy the policy reads or the seed counts differ.
Decision decide(Policy policy, const CapacityProfile &original, const CapacityProfile &transformed,
                const GateParams &params);

/// How to measure: the zero-cost proxies with `fisher` (its proxy field is set per proxy; the same
/// options for both models), train_loss with `training`.
struct CapacityOptions {
  FisherOptions fisher;
  ShortTrainingOptions training;
};

/// The proxies (capacityProxyNames names, in that order) that decide(policy, ...) reads: fisher for
/// paper, fisher-layer and fisher-seeds; synflow; jacob_cov; train_loss; synflow, jacob_cov and
/// train_loss for vote.
std::vector<std::string> proxiesOf(Policy policy);

/// Measures the proxies named in `proxies` (capacityProxyNames names) of `graph`, a model prepared
/// for training (loadForTraining; not changed): the zero-cost ones with measureFisher (totals, mean
/// over the seeds; for fisher also fisherLayers and fisherRuns, for synflow, in natural log,
/// synflowLayers, and layerWeights), train_loss with measureShortTraining, params and flops with
/// modelCost. Throws nasc::Error for an unknown name and every error of the measurements.
CapacityProfile measureCapacity(const ir::Graph &graph, const CapacityOptions &options,
                                const std::vector<std::string> &proxies);

/// Throws nasc::Error naming both graphs' sources when their graph inputs or outputs differ in
/// count or in shape (the batch dim, dim 0, excepted).
void checkSameInterface(const ir::Graph &original, const ir::Graph &transformed);

/// The gate's result: both profiles, the decision of `policy` and of every policy whose proxies
/// were measured (policyNames order; all of them when every proxy was).
struct CapacityReport {
  CapacityProfile original, transformed;
  Decision decision;
  std::vector<Decision> decisions;
};

/// The capacity gate of the candidates of one original model, in memory: the original is measured
/// once, when the gate is made, and every candidate is measured on the same proxies and judged
/// against it. With GateParams::expansionRule, a candidate the spatial-expansion rule refuses
/// (expansionRefusal against the original's Resizes) is refused by every policy, the rule's
/// reason first; its proxies are still measured and reported. Measuring only proxiesOf(policy)
/// keeps a candidate to what the policy reads. The He-normal weights drawn for the original are
/// kept (HeNormalCache; for CIFAR ResNet-34, 85 MB per seed) and a candidate's layers that did not
/// change reuse them: the same values, not drawn again.
class CapacityGate {
public:
  /// Measures `original` (prepared for training, loadForTraining) on `proxies` (capacityProxyNames
  /// names, which must include proxiesOf(policy)). Throws nasc::Error for a proxy list without
  /// the policy's and every error of measureCapacity.
  CapacityGate(const ir::Graph &original, Policy policy, CapacityOptions options, GateParams params,
               std::vector<std::string> proxies);

  /// checkSameInterface against the original, measureCapacity of `candidate` (prepared for
  /// training), decide. Throws every error of those.
  CapacityReport judge(const ir::Graph &candidate) const { return judge(candidate, params_); }

  /// judge() with the thresholds `params` instead of the gate's (e.g. a tolerance scaled by the
  /// layers the candidate changes, as nasc search sets it).
  CapacityReport judge(const ir::Graph &candidate, const GateParams &params) const;

  /// The original's measurement.
  const CapacityProfile &original() const { return original_; }

private:
  std::string source_;    ///< The original's graph source.
  std::string interface_; ///< Its inputs and outputs as checkSameInterface compares them.
  Policy policy_;
  CapacityOptions options_;
  GateParams params_;
  std::vector<std::string> proxies_;
  std::set<std::string> originalResizes_; ///< resizeNodes(original).
  std::unique_ptr<HeNormalCache> cache_ = std::make_unique<HeNormalCache>();
  CapacityProfile original_;
};

/// checkSameInterface, then CapacityGate(original, ...).judge(transformed), both models prepared
/// for training: what `nasc capacity` and `nasc mutate --check-capacity` run.
CapacityReport runCapacityGate(const ir::Graph &original, const ir::Graph &transformed,
                               Policy policy, const CapacityOptions &options,
                               const GateParams &params, const std::vector<std::string> &proxies);

} // namespace nasc::nas
