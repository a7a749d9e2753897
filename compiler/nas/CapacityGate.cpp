#include "compiler/nas/CapacityGate.h"

#include "compiler/nas/ModelCost.h"
#include "ir/Error.h"
#include "ir/import/ModelLoader.h"
#include "ir/passes/Passes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

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

Decision synflow(const CapacityProfile &original, const CapacityProfile &transformed,
                 const GateParams &params) {
  const double o = proxyOf(original, "synflow"), n = proxyOf(transformed, "synflow");
  if (!(o > 0) || !(n > 0))
    return {Policy::Synflow, false,
            values("synflow", o, n) + ": a value is not positive, so no log-ratio"};
  const double tolerance = toleranceOf(params, Policy::Synflow), delta = std::log(n) - std::log(o);
  const bool legal = delta >= -tolerance;
  return {Policy::Synflow, legal,
          values("synflow", o, n) + ": ln ratio " + num(delta) + (legal ? " >= " : " < ") + "-" +
              num(tolerance)};
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

ir::Graph loadForTraining(const std::string &path) {
  ir::Graph graph = ir::loadModelRaw(path);
  ir::prepareForTraining(graph);
  return graph;
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
  const std::vector<std::string> &names = policyNames();
  std::string list;
  for (size_t k = 0; k < names.size(); ++k) {
    if (names[k] == name)
      return static_cast<Policy>(k);
    list += (k ? ", " : "") + names[k];
  }
  throw Error("capacity: unknown policy '" + name + "' (expected one of " + list + ")");
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

CapacityProfile measureCapacity(const std::string &modelPath, const CapacityOptions &options) {
  CapacityProfile profile;
  FisherOptions fisher = options.fisher;
  for (const std::string &name : proxyNames()) {
    fisher.proxy = parseProxy(name);
    const FisherMeasurement m = measureFisher(modelPath, fisher);
    profile.proxies[name] = m.total.mean;
    if (fisher.proxy != Proxy::Fisher)
      continue;
    for (size_t k = 0; k < m.layers.size(); ++k)
      profile.fisherLayers[m.layers[k]] = m.layerValues[k].mean;
    profile.fisherRuns = m.totals;
  }
  profile.proxies["train_loss"] = measureShortTraining(modelPath, options.training).mean;
  const ir::Graph graph = loadForTraining(modelPath);
  const ModelCost cost = modelCost(graph);
  const int64_t batch = graph.shapeOf(graph.inputs.at(0)).at(0);
  profile.proxies["params"] = static_cast<double>(cost.params);
  profile.proxies["flops"] = cost.flops / static_cast<double>(std::max<int64_t>(batch, 1));
  return profile;
}

void checkSameInterface(const std::string &originalPath, const std::string &transformedPath) {
  const std::string original = interfaceOf(loadForTraining(originalPath));
  const std::string transformed = interfaceOf(loadForTraining(transformedPath));
  if (original != transformed)
    throw Error("capacity: " + originalPath + " and " + transformedPath +
                " have different graph inputs or outputs (batch dim excepted): " + original +
                " vs " + transformed);
}

CapacityReport runCapacityGate(const std::string &originalPath, const std::string &transformedPath,
                               Policy policy, const CapacityOptions &options,
                               const GateParams &params) {
  checkSameInterface(originalPath, transformedPath);
  CapacityReport report;
  report.original = measureCapacity(originalPath, options);
  report.transformed = measureCapacity(transformedPath, options);
  for (size_t k = 0; k < policyNames().size(); ++k)
    report.decisions.push_back(
        decide(static_cast<Policy>(k), report.original, report.transformed, params));
  report.decision = report.decisions.at(static_cast<size_t>(policy));
  return report;
}

} // namespace nasc::nas
