#include "compiler/nas/CapacityGate.h"

#include "compiler/nas/ExpansionRule.h"
#include "compiler/nas/ModelCost.h"
#include "ir/Error.h"
#include "ir/NameIndex.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

namespace nasc::nas {

namespace {

std::string num(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

double proxyOf(const CapacityProfile &profile, const std::string &name) {
  auto it = profile.proxies.find(name);
  if (it == profile.proxies.end())
    throw Error("capacity: proxy '" + name + "' was not measured");
  return it->second;
}

/// "<proxy> <new> (new) vs <original> (original)".
std::string values(const std::string &proxy, double original, double transformed) {
  return proxy + " " + num(transformed) + " (new) vs " + num(original) + " (original)";
}

double toleranceOf(const GateParams &params, Policy policy) {
  auto it = params.tolerances.find(policy);
  if (it == params.tolerances.end())
    throw Error("capacity: no tolerance for policy '" + policyName(policy) + "'");
  return it->second;
}

Decision paper(const CapacityProfile &original, const CapacityProfile &transformed,
               const GateParams &params) {
  const double o = proxyOf(original, "fisher"), n = proxyOf(transformed, "fisher");
  const bool legal = n >= params.theta * o;
  return {Policy::Paper, legal,
          values("Fisher Potential", o, n) + (legal ? " >= " : " < ") + "theta " +
              num(params.theta) + " x original"};
}

Decision fisherLayer(const CapacityProfile &original, const CapacityProfile &transformed,
                     const GateParams &params) {
  std::string worst;
  double ratio = std::numeric_limits<double>::infinity();
  for (const auto &[layer, value] : transformed.fisherLayers) {
    auto it = original.fisherLayers.find(layer);
    if (it == original.fisherLayers.end() || it->second <= 0)
      continue;
    if (value / it->second < ratio) {
      ratio = value / it->second;
      worst = layer;
    }
  }
  if (worst.empty())
    return {Policy::FisherLayer, false,
            "no Conv layer of the new model with a positive Fisher Potential in the original"};
  const bool legal = ratio >= params.theta;
  return {Policy::FisherLayer, legal,
          "smallest per-layer Fisher Potential ratio " + num(ratio) + " at layer '" + worst +
              "' (" +
              values("Fisher Potential", original.fisherLayers.at(worst),
                     transformed.fisherLayers.at(worst)) +
              ")" + (legal ? " >= " : " < ") + "theta " + num(params.theta)};
}

Decision fisherSeeds(const CapacityProfile &original, const CapacityProfile &transformed,
                     const GateParams &params) {
  if (original.fisherRuns.size() != transformed.fisherRuns.size() || original.fisherRuns.empty())
    throw Error("capacity: fisher-seeds needs the same number of seeds for both models");
  size_t wins = 0;
  for (size_t s = 0; s < original.fisherRuns.size(); ++s)
    wins += transformed.fisherRuns[s] >= params.theta * original.fisherRuns[s] ? 1 : 0;
  const bool legal = 2 * wins > original.fisherRuns.size();
  return {Policy::FisherSeeds, legal,
          "Fisher Potential of the new model >= theta " + num(params.theta) + " x original in " +
              std::to_string(wins) + " of " + std::to_string(original.fisherRuns.size()) +
              " seeds (" +
              values("mean", proxyOf(original, "fisher"), proxyOf(transformed, "fisher")) + ")"};
}

/// The Conv layer of both profiles' synflowLayers (ln S_l, finite values) whose share of the
/// synflow total falls most from `original` to `transformed`, and that fall, (ln S_l(original) −
/// ln synflow(original)) − (ln S_l(new) − ln synflow(new)); an empty name when no layer matches.
std::pair<std::string, double> largestShareFall(const CapacityProfile &original,
                                                const CapacityProfile &transformed) {
  const double o = proxyOf(original, "synflow"), n = proxyOf(transformed, "synflow");
  std::pair<std::string, double> worst{"", -std::numeric_limits<double>::infinity()};
  for (const auto &[layer, value] : transformed.synflowLayers) {
    auto it = original.synflowLayers.find(layer);
    if (it == original.synflowLayers.end() || !std::isfinite(it->second) || !std::isfinite(value))
      continue;
    const double fall = (it->second - o) - (value - n);
    if (fall > worst.second)
      worst = {layer, fall};
  }
  return worst;
}

/// The layer of both profiles' layerWeights that keeps the smallest fraction of its original
/// weights, and that fraction; an empty name when no layer matches.
std::pair<std::string, double> smallestWeightFraction(const CapacityProfile &original,
                                                      const CapacityProfile &transformed) {
  std::pair<std::string, double> worst{"", std::numeric_limits<double>::infinity()};
  for (const auto &[layer, fraction] :
       layerWeightFractions(original.layerWeights, transformed.layerWeights))
    if (fraction < worst.second)
      worst = {layer, fraction};
  return worst;
}

Decision synflow(const CapacityProfile &original, const CapacityProfile &transformed,
                 const GateParams &params) {
  const double o = proxyOf(original, "synflow"), n = proxyOf(transformed, "synflow");
  if (!std::isfinite(o) || !std::isfinite(n))
    return {Policy::Synflow, false,
            values("ln synflow", o, n) +
                ": a synflow is 0 (ln -inf) or not a number, so no log-ratio"};
  const double tolerance = toleranceOf(params, Policy::Synflow), delta = n - o;
  const bool legal = delta >= -tolerance;
  const std::string total = values("ln synflow", o, n) + ": ln ratio " + num(delta) +
                            (legal ? " >= " : " < ") + "-" + num(tolerance);
  if (!legal)
    return {Policy::Synflow, false, total};
  const auto [layer, fall] = largestShareFall(original, transformed);
  if (!layer.empty() && fall > params.synflowShareTolerance)
    return {Policy::Synflow, false,
            total + ", but the share of layer '" + layer + "' in it fell by ln " + num(fall) +
                " > " + num(params.synflowShareTolerance) +
                " (a branch the total does not see, e.g. a shortcut projection)"};
  const auto [thinnest, fraction] = smallestWeightFraction(original, transformed);
  if (!thinnest.empty() && fraction < params.layerWeightFloor)
    return {Policy::Synflow, false,
            total + ", but layer '" + thinnest + "' keeps " + num(fraction) + " of its weights (" +
                std::to_string(transformed.layerWeights.at(thinnest)) + " of " +
                std::to_string(original.layerWeights.at(thinnest)) + ") < " +
                num(params.layerWeightFloor) + " (steps stacked on it compound)"};
  return {Policy::Synflow, true, total};
}

Decision jacobCov(const CapacityProfile &original, const CapacityProfile &transformed,
                  const GateParams &params) {
  const double o = proxyOf(original, "jacob_cov"), n = proxyOf(transformed, "jacob_cov");
  const double tolerance = toleranceOf(params, Policy::JacobCov);
  const double delta = (std::isinf(o) && std::isinf(n) && o == n) ? 0.0 : n - o;
  const bool legal = delta >= -tolerance;
  return {Policy::JacobCov, legal,
          values("jacob_cov", o, n) + ": difference " + num(delta) + (legal ? " >= " : " < ") +
              "-" + num(tolerance)};
}

Decision trainLoss(const CapacityProfile &original, const CapacityProfile &transformed,
                   const GateParams &params) {
  const double o = proxyOf(original, "train_loss"), n = proxyOf(transformed, "train_loss");
  const double tolerance = toleranceOf(params, Policy::TrainLoss);
  const bool legal = n <= o + tolerance;
  return {Policy::TrainLoss, legal,
          values("train_loss", o, n) + (legal ? " <= " : " > ") + "original + " + num(tolerance)};
}

Decision vote(const CapacityProfile &original, const CapacityProfile &transformed,
              const GateParams &params) {
  int ayes = 0;
  std::string members;
  for (Policy member : {Policy::Synflow, Policy::JacobCov, Policy::TrainLoss}) {
    const Decision d = decide(member, original, transformed, params);
    ayes += d.legal ? 1 : 0;
    members += (members.empty() ? "" : "; ") + policyName(member) +
               (d.legal ? " legal (" : " refused (") + d.reason + ")";
  }
  return {Policy::Vote, ayes >= 2, std::to_string(ayes) + " of 3 votes legal: " + members};
}

/// "inputs (A, B) -> outputs (C)" with every shape written "Nx..." after its batch dim, e.g.
/// "inputs (1x16x16) -> outputs (10)".
std::string interfaceOf(const ir::Graph &graph) {
  auto list = [&](const std::vector<std::string> &names) {
    std::string text;
    for (const std::string &name : names) {
      const ir::Shape &shape = graph.shapeOf(name);
      text += (text.empty() ? "" : ", ") +
              ir::shapeToString(shape.empty() ? shape : ir::Shape(shape.begin() + 1, shape.end()));
    }
    return "(" + text + ")";
  };
  return "inputs " + list(graph.inputs) + " -> outputs " + list(graph.outputs);
}

/// Throws the checkSameInterface error unless `transformed` has the interface `original` (of the
/// graph read from `source`).
void requireInterface(const std::string &source, const std::string &original,
                      const ir::Graph &transformed) {
  const std::string other = interfaceOf(transformed);
  if (original != other)
    throw Error("capacity: " + source + " and " + transformed.source +
                " have different graph inputs or outputs (batch dim excepted): " + original +
                " vs " + other);
}

bool measured(const CapacityProfile &profile, Policy policy) {
  for (const std::string &name : proxiesOf(policy))
    if (!profile.proxies.count(name))
      return false;
  return true;
}

bool contains(const std::vector<std::string> &names, const std::string &name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

void measureZeroCost(const ir::Graph &graph, const std::string &name, const FisherOptions &options,
                     CapacityProfile &profile) {
  FisherOptions fisher = options;
  fisher.proxy = parseProxy(name);
  const FisherMeasurement m = measureFisher(graph, fisher);
  profile.proxies[name] = m.total.mean;
  if (fisher.proxy == Proxy::Synflow) {
    for (size_t k = 0; k < m.layers.size(); ++k)
      profile.synflowLayers[m.layers[k]] = m.layerValues[k].mean;
    profile.layerWeights = convLayerWeights(graph);
  }
  if (fisher.proxy != Proxy::Fisher)
    return;
  for (size_t k = 0; k < m.layers.size(); ++k)
    profile.fisherLayers[m.layers[k]] = m.layerValues[k].mean;
  profile.fisherRuns = m.totals;
}

/// Every decision of `report` refused, `why` before its own reason.
void refuseAll(CapacityReport &report, const std::string &why) {
  for (Decision &d : report.decisions)
    d = {d.policy, false, why + " (" + d.reason + ")"};
  report.decision = {report.decision.policy, false, why + " (" + report.decision.reason + ")"};
}

} // namespace

const std::vector<std::string> &policyNames() {
  static const std::vector<std::string> names = {
      "paper", "fisher-layer", "fisher-seeds", "synflow", "jacob_cov", "train-loss", "vote"};
  return names;
}

const std::string &policyName(Policy policy) {
  return policyNames().at(static_cast<size_t>(policy));
}

Policy parsePolicy(const std::string &name) {
  return static_cast<Policy>(nameIndex(policyNames(), name, "capacity: unknown policy"));
}

const std::vector<std::string> &capacityProxyNames() {
  static const std::vector<std::string> names = {"fisher",    "synflow",    "jacob_cov", "snip",
                                                 "grad_norm", "train_loss", "params",    "flops"};
  return names;
}

Decision decide(Policy policy, const CapacityProfile &original, const CapacityProfile &transformed,
                const GateParams &params) {
  switch (policy) {
  case Policy::Paper:
    return paper(original, transformed, params);
  case Policy::FisherLayer:
    return fisherLayer(original, transformed, params);
  case Policy::FisherSeeds:
    return fisherSeeds(original, transformed, params);
  case Policy::Synflow:
    return synflow(original, transformed, params);
  case Policy::JacobCov:
    return jacobCov(original, transformed, params);
  case Policy::TrainLoss:
    return trainLoss(original, transformed, params);
  case Policy::Vote:
    return vote(original, transformed, params);
  }
  throw Error("capacity: unknown policy");
}

std::vector<std::string> proxiesOf(Policy policy) {
  switch (policy) {
  case Policy::Paper:
  case Policy::FisherLayer:
  case Policy::FisherSeeds:
    return {"fisher"};
  case Policy::Synflow:
    return {"synflow"};
  case Policy::JacobCov:
    return {"jacob_cov"};
  case Policy::TrainLoss:
    return {"train_loss"};
  case Policy::Vote:
    return {"synflow", "jacob_cov", "train_loss"};
  }
  throw Error("capacity: unknown policy");
}

CapacityProfile measureCapacity(const ir::Graph &graph, const CapacityOptions &options,
                                const std::vector<std::string> &proxies) {
  for (const std::string &name : proxies)
    if (!contains(capacityProxyNames(), name))
      throw Error("capacity: unknown proxy '" + name + "'");
  CapacityProfile profile;
  for (const std::string &name : proxyNames())
    if (contains(proxies, name))
      measureZeroCost(graph, name, options.fisher, profile);
  if (contains(proxies, "train_loss"))
    profile.proxies["train_loss"] = measureShortTraining(graph, options.training).mean;
  if (!contains(proxies, "params") && !contains(proxies, "flops"))
    return profile;
  const ModelCost cost = modelCost(graph);
  const int64_t batch = graph.shapeOf(graph.inputs.at(0)).at(0);
  if (contains(proxies, "params"))
    profile.proxies["params"] = static_cast<double>(cost.params);
  if (contains(proxies, "flops"))
    profile.proxies["flops"] = cost.flops / static_cast<double>(std::max<int64_t>(batch, 1));
  return profile;
}

void checkSameInterface(const ir::Graph &original, const ir::Graph &transformed) {
  requireInterface(original.source, interfaceOf(original), transformed);
}

CapacityGate::CapacityGate(const ir::Graph &original, Policy policy, CapacityOptions options,
                           GateParams params, std::vector<std::string> proxies)
    : source_(original.source), interface_(interfaceOf(original)), policy_(policy),
      options_(std::move(options)), params_(std::move(params)), proxies_(std::move(proxies)),
      originalResizes_(resizeNodes(original)) {
  for (const std::string &name : proxiesOf(policy_))
    if (!contains(proxies_, name))
      throw Error("capacity: policy '" + policyName(policy_) + "' reads proxy '" + name +
                  "', which the gate is not asked to measure");
  options_.fisher.initCache = options_.training.initCache = cache_.get();
  original_ = measureCapacity(original, options_, proxies_);
  cache_->freeze();
}

CapacityReport CapacityGate::judge(const ir::Graph &candidate, const GateParams &params) const {
  requireInterface(source_, interface_, candidate);
  CapacityReport report;
  report.original = original_;
  report.transformed = measureCapacity(candidate, options_, proxies_);
  for (size_t k = 0; k < policyNames().size(); ++k)
    if (measured(original_, static_cast<Policy>(k)))
      report.decisions.push_back(
          decide(static_cast<Policy>(k), report.original, report.transformed, params));
  report.decision = decide(policy_, report.original, report.transformed, params);
  if (params.expansionRule)
    if (const std::optional<std::string> why = expansionRefusal(originalResizes_, candidate))
      refuseAll(report, *why);
  return report;
}

CapacityReport runCapacityGate(const ir::Graph &original, const ir::Graph &transformed,
                               Policy policy, const CapacityOptions &options,
                               const GateParams &params, const std::vector<std::string> &proxies) {
  checkSameInterface(original, transformed);
  return CapacityGate(original, policy, options, params, proxies).judge(transformed);
}

} // namespace nasc::nas
