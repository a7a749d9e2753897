#include "compiler/search/Layerwise.h"

#include "compiler/nas/ModelCost.h"
#include "compiler/nas/SpatialBottleneck.h"
#include "compiler/search/ConvWorkload.h"
#include "ir/passes/GraphEdit.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace nasc::search {

namespace {

/// Where Conv `node`'s output goes past its BN and elementwise ops (nas::expansionPoint): the
/// sorted op types of the nodes reading it, "output" for a graph output. A block's first conv
/// (read by the next Conv) and its last (read by the residual Add) have the same workload but not
/// the same place: the steps' structural checks and the capacity gate see the place.
std::string placeOf(const ir::Graph &graph, const std::string &node) {
  const ir::Node &conv = *std::find_if(graph.nodes.begin(), graph.nodes.end(),
                                       [&](const ir::Node &n) { return n.name == node; });
  const std::string value = nas::expansionPoint(graph, conv.outputs.at(0));
  std::vector<std::string> readers;
  if (ir::isGraphOutput(graph, value))
    readers.push_back("output");
  for (size_t reader : graph.consumersOf(value))
    readers.push_back(graph.nodes[reader].op_type);
  std::sort(readers.begin(), readers.end());
  readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
  std::string place;
  for (const std::string &reader : readers)
    place += (place.empty() ? "" : ",") + reader;
  return place;
}

/// The Convs of one workload in one place, the first one's workload graph and its FLOP.
struct ConvGroup {
  std::vector<std::string> members;
  const ConvWorkload *first = nullptr;
  double flops = 0;
};

/// The `searchable` Convs of `original` grouped by workload and place, by total FLOP, largest
/// first.
std::vector<ConvGroup> convGroups(const ir::Graph &original,
                                  const std::vector<std::string> &searchable,
                                  const std::vector<ConvWorkload> &convs) {
  std::vector<ConvGroup> groups;
  std::map<std::string, size_t> byKey;
  for (const ConvWorkload &conv : convs) {
    if (std::find(searchable.begin(), searchable.end(), conv.node) == searchable.end())
      continue;
    const auto [it, added] =
        byKey.emplace(conv.key + " @" + placeOf(original, conv.node), groups.size());
    if (added)
      groups.push_back({{}, &conv, nas::modelCost(conv.graph).flops});
    groups[it->second].members.push_back(conv.node);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const ConvGroup &a, const ConvGroup &b) {
    return static_cast<double>(a.members.size()) * a.flops >
           static_cast<double>(b.members.size()) * b.flops;
  });
  return groups;
}

/// Whether `step` applied to `group`'s graph alone cuts its FLOP, or that graph refuses it.
bool cutsFlops(const ConvGroup &group, const nas::NeuralStep &step) {
  try {
    return nas::modelCost(nas::applyNeuralStep(group.first->graph, step)).flops < group.flops;
  } catch (const nas::RefusedTransformation &) {
    return true;
  }
}

/// `step` on Conv `node` instead of its own.
nas::NeuralStep onNode(nas::NeuralStep step, const std::string &node) {
  step.node = node;
  return step;
}

} // namespace

Layerwise::Layerwise(const ir::Graph &original, LayerwiseOptions options)
    : original_(original), searchable_(searchableConvs(original)), options_(options),
      originalWeights_(nas::convLayerWeights(original)) {
  const std::vector<ConvWorkload> convs = convWorkloads(original);
  const std::vector<ConvGroup> groups = convGroups(original, searchable_, convs);
  std::vector<std::vector<nas::NeuralStep>> steps(groups.size());
  size_t rounds = 0;
  for (size_t w = 0; w < groups.size(); ++w) {
    for (const nas::NeuralStep &step :
         stepChoices(original, groups[w].members.front(), options.transforms))
      if (cutsFlops(groups[w], step))
        steps[w].push_back(step);
    rounds = std::max(rounds, steps[w].size());
  }
  for (size_t round = 0; round < rounds; ++round)
    for (size_t w = 0; w < groups.size(); ++w)
      if (round < steps[w].size()) {
        layerSteps_.push_back({steps[w][round], groups[w].members});
        groupOf_.push_back(w);
      }
  groups_ = groups.size();
}

Candidate Layerwise::compose(const std::vector<std::vector<const LayerStep *>> &ranked,
                             std::vector<size_t> choice) const {
  if (options_.weightFloor > 0)
    keepWeightFloor(ranked, choice);
  std::map<std::string, nas::NeuralStep> chosen; // by Conv
  for (size_t w = 0; w < ranked.size(); ++w)
    if (choice[w] < ranked[w].size())
      for (const std::string &member : ranked[w][choice[w]]->members)
        chosen.emplace(member, onNode(ranked[w][choice[w]]->step, member));
  Candidate candidate{{}, original_, {}};
  for (const std::string &node : searchable_)
    if (auto step = chosen.find(node); step != chosen.end())
      addStep(candidate, step->second);
  return candidate;
}

void Layerwise::keepWeightFloor(const std::vector<std::vector<const LayerStep *>> &ranked,
                                std::vector<size_t> &choice) const {
  std::map<std::string, double> kept; // per layer, the fraction the groups taken so far leave
  for (size_t w = 0; w < ranked.size(); ++w) {
    for (; choice[w] < ranked[w].size(); ++choice[w]) {
      const std::map<std::string, double> &fractions = weightFractions(*ranked[w][choice[w]]);
      const bool keeps = std::all_of(fractions.begin(), fractions.end(), [&](const auto &f) {
        auto it = kept.find(f.first);
        return (it == kept.end() ? 1.0 : it->second) * f.second >= options_.weightFloor;
      });
      if (keeps)
        break;
    }
    if (choice[w] < ranked[w].size())
      for (const auto &[layer, fraction] : weightFractions(*ranked[w][choice[w]]))
        kept.emplace(layer, 1.0).first->second *= fraction;
  }
}

const std::map<std::string, double> &Layerwise::weightFractions(const LayerStep &step) const {
  const std::string key = step.step.toString();
  if (auto it = fractions_.find(key); it != fractions_.end())
    return it->second;
  Candidate alone{{}, original_, {}};
  for (const std::string &member : step.members)
    addStep(alone, onNode(step.step, member));
  return fractions_
      .emplace(key, nas::layerWeightFractions(originalWeights_, nas::convLayerWeights(alone.graph)))
      .first->second;
}

Candidate Layerwise::propose(int64_t index, const std::vector<Scored> &history,
                             double baselineSeconds, std::mt19937_64 &rng) const {
  const int64_t single = index - (index + 1) / options_.period;
  if (index % options_.period != options_.period - 1 &&
      single < static_cast<int64_t>(layerSteps_.size())) {
    Candidate candidate{{}, original_, {}};
    addStep(candidate, layerSteps_[static_cast<size_t>(single)].step);
    return candidate;
  }
  std::map<std::string, double> alone; // Measured single steps faster than the baseline
  std::set<std::string> tried;
  for (const Scored &scored : history) {
    tried.insert(nas::stepsText(scored.steps));
    if (scored.steps.size() == 1 && scored.outcome == Scored::Outcome::Measured &&
        scored.seconds < baselineSeconds)
      alone[scored.steps.front().toString()] = scored.seconds;
  }
  std::vector<std::vector<const LayerStep *>> ranked(groups_);
  for (size_t s = 0; s < layerSteps_.size(); ++s)
    if (alone.count(layerSteps_[s].step.toString()))
      ranked[groupOf_[s]].push_back(&layerSteps_[s]);
  for (std::vector<const LayerStep *> &steps : ranked)
    std::stable_sort(steps.begin(), steps.end(), [&](const LayerStep *a, const LayerStep *b) {
      return alone[a->step.toString()] < alone[b->step.toString()];
    });

  std::vector<size_t> choice(groups_, 0); // the fastest of each group
  Candidate candidate = compose(ranked, choice);
  if (candidate.steps.empty())
    candidate.refusals.insert(candidate.refusals.begin(),
                              "no layer step has passed the gate and run faster yet");
  for (int t = 0; t < options_.tries && tried.count(nas::stepsText(candidate.steps)); ++t) {
    for (size_t w = 0; w < groups_; ++w) {
      const double u = uniform(rng);
      choice[w] = u < options_.perturb ? 1 : u < 2 * options_.perturb ? ranked[w].size() : 0;
    }
    candidate = compose(ranked, choice);
  }
  return candidate;
}

} // namespace nasc::search
