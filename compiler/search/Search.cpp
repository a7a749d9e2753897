#include "compiler/search/Search.h"

#include "compiler/nas/CapacityJson.h"
#include "compiler/nas/FisherMeasurement.h"
#include "compiler/nas/ModelCost.h"
#include "compiler/nas/NeuralTrace.h"
#include "compiler/search/Budget.h"
#include "compiler/search/ConvWorkload.h"
#include "compiler/search/Evolution.h"
#include "compiler/search/LayerTimes.h"
#include "compiler/search/Layerwise.h"
#include "compiler/search/SearchSpace.h"
#include "ir/NameIndex.h"
#include "ir/import/ModelLoader.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>

namespace nasc::search {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The seconds of every Conv of `graph` (static shapes) by LayerTimes.
double convSeconds(const ir::Graph &graph, LayerTimes &layers) {
  double total = 0;
  for (const ConvWorkload &workload : convWorkloads(graph))
    total += layers.seconds(workload);
  return total;
}

/// The db record of `candidate` of search `identity`.
TuningRecord toRecord(const CandidateResult &candidate, const std::string &identity,
                      const std::string &target) {
  nlohmann::json steps = nlohmann::json::array();
  for (const nas::NeuralStep &step : candidate.steps)
    steps.push_back(step.toString());
  nlohmann::json detail{{"steps", steps},
                        {"reason", candidate.reason},
                        {"flops", candidate.flops},
                        {"params", candidate.params},
                        {"proxies", candidate.proxies}};
  if (!candidate.capacity.empty())
    detail["capacity"] = nlohmann::json::parse(candidate.capacity);
  return {"network " + nas::stepsText(candidate.steps),
          target,
          nascVersion(),
          identity,
          candidate.index,
          candidate.status,
          candidate.estimate,
          detail.dump()};
}

/// The candidate a record of this search holds (--resume).
CandidateResult fromRecord(const TuningRecord &record) {
  const nlohmann::json detail = nlohmann::json::parse(record.detail);
  CandidateResult candidate;
  candidate.index = record.index;
  for (const nlohmann::json &step : detail.at("steps"))
    candidate.steps.push_back(nas::parseNeuralStep(step.get<std::string>()));
  candidate.status = record.status;
  candidate.reason = detail.at("reason");
  candidate.estimate = record.seconds;
  candidate.flops = detail.at("flops");
  candidate.params = detail.at("params");
  candidate.proxies = detail.at("proxies").get<std::map<std::string, double>>();
  if (detail.contains("capacity"))
    candidate.capacity = detail["capacity"].dump();
  return candidate;
}

/// The history proposeCandidate learns from: the candidates with steps, in order.
std::vector<Scored> history(const std::vector<CandidateResult> &candidates) {
  std::vector<Scored> scored;
  for (const CandidateResult &c : candidates)
    if (!c.steps.empty())
      scored.push_back({c.steps,
                        c.status == "measured"  ? Scored::Outcome::Measured
                        : c.status == "refused" ? Scored::Outcome::Refused
                                                : Scored::Outcome::Failed,
                        c.estimate});
  return scored;
}

/// Candidate `index` of `options.strategy` after `before`; `layerwise` is the layerwise
/// strategy's state (made when that is the strategy) and `baselineSeconds` the original's
/// estimate (its Convs' workloads).
Candidate draw(int64_t index, const ir::Graph &original, const SearchOptions &options,
               const std::vector<CandidateResult> &before,
               const std::optional<Layerwise> &layerwise, double baselineSeconds) {
  std::mt19937_64 rng = candidateRng(options.seed, index);
  switch (options.strategy) {
  case Strategy::Evolution: {
    EvolutionOptions evolution;
    evolution.transforms = options.transforms;
    return proposeCandidate(original, history(before), rng, evolution);
  }
  case Strategy::Layerwise:
    return layerwise->propose(index, history(before), baselineSeconds, rng);
  case Strategy::Random:
    break;
  }
  return sampleCandidate(original, rng, options.transforms);
}

/// Judges and estimates candidate `index`, `drawn`: gated, its layers measured; the wall time of
/// the gate added to `phases`.
CandidateResult evaluate(int64_t index, const Candidate &drawn, const SearchOptions &options,
                         const nas::CapacityGate &gate, LayerTimes &layers, double otherSeconds,
                         std::map<std::string, double> &phases) {
  CandidateResult result;
  result.index = index;
  result.steps = drawn.steps;
  const nas::ModelCost cost = nas::modelCost(drawn.graph);
  result.flops = cost.flops;
  result.params = cost.params;
  if (drawn.steps.empty()) {
    result.status = "refused";
    result.reason = drawn.refusals.empty() ? "no step drawn" : drawn.refusals.front();
    return result;
  }
  try {
    const Clock::time_point judging = Clock::now();
    std::set<std::string> touched;
    for (const nas::NeuralStep &step : drawn.steps)
      touched.insert(step.node);
    const nas::CapacityReport report =
        gate.judge(drawn.graph, gateParamsFor(options, touched.size()));
    phases["gate"] += since(judging);
    result.proxies = report.transformed.proxies;
    result.capacity = nas::capacityJson(report, -1);
    if (!report.decision.legal) {
      result.status = "refused";
      result.reason = report.decision.reason;
      return result;
    }
    result.estimate = otherSeconds + convSeconds(drawn.graph, layers);
    result.status = "measured";
  } catch (const WrongOutput &e) {
    result.status = "wrong";
    result.reason = e.what();
  } catch (const Error &e) {
    result.status = "failed";
    result.reason = e.what();
  }
  return result;
}

/// The `count` measured candidates of lowest estimate, distinct steps, best first.
std::vector<const CandidateResult *> bestEstimates(const std::vector<CandidateResult> &candidates,
                                                   int count) {
  std::vector<const CandidateResult *> measured;
  for (const CandidateResult &c : candidates)
    if (c.status == "measured")
      measured.push_back(&c);
  std::stable_sort(measured.begin(), measured.end(),
                   [](auto *a, auto *b) { return a->estimate < b->estimate; });
  std::vector<const CandidateResult *> best;
  std::set<std::string> seen;
  for (const CandidateResult *c : measured)
    if (static_cast<int>(best.size()) < count && seen.insert(nas::stepsText(c->steps)).second)
      best.push_back(c);
  return best;
}

/// The fastest schedule choices of Conv workloads (LayerTimes::tune), by ConvWorkload::key.
using TunedWorkloads = std::map<std::string, TunedLayer>;

/// `graph`'s Conv workloads each with its fastest schedule choices in `tunedWorkloads` (which
/// holds every one of them): the network's Timed without its seconds, tunedEstimate
/// `otherSeconds` plus the layers' (summed in convSeconds' order, so that it is never above the
/// estimate when no choice is faster).
Timed tuneNetwork(const ir::Graph &graph, const TunedWorkloads &tunedWorkloads,
                  double otherSeconds) {
  Timed tuned;
  double layerSeconds = 0;
  for (const ConvWorkload &workload : convWorkloads(graph)) {
    const TunedLayer &layer = tunedWorkloads.at(workload.key);
    layerSeconds += layer.seconds;
    if (layer.choices != compiler::TraceChoices{})
      tuned.choices[workload.node] = layer.choices;
  }
  tuned.tunedEstimate = otherSeconds + layerSeconds;
  return tuned;
}

/// `options` for timing a whole network: at least 20 runs and kWholeMinSeconds of them.
SearchOptions wholeNetwork(SearchOptions options) {
  options.measure.repeat = std::max(options.measure.repeat, 20);
  options.measure.minSeconds = std::max(options.measure.minSeconds, kWholeMinSeconds);
  return options;
}

/// `timed` (its steps and choices) compiled on `inference` and timed whole (wholeNetwork); a
/// failure kept as its reason.
void timeWhole(const ir::Graph &inference, Timed &timed, const SearchOptions &options) {
  try {
    const compiler::ModelSchedule schedule =
        withChoices(nas::neuralSchedule(timed.steps, "search", ""), timed.choices);
    timed.seconds = measureAs(wholeNetwork(options), inference, schedule).seconds;
  } catch (const Error &e) {
    timed.reason = e.what();
  }
}

/// Whether the budget allows candidate `index` `elapsed` seconds after the start, exploring
/// until `exploreEnd` (a time budget's BudgetPlan).
bool withinBudget(const SearchOptions &options, int64_t index, double elapsed, double exploreEnd) {
  return options.candidates > 0 ? index < options.candidates : elapsed < exploreEnd;
}

/// The original's first whole timing: its median run, and the wall seconds of measuring it
/// (compiling, checking, timing).
struct StartTiming {
  double seconds = 0, wallSeconds = 0;
};

/// The original timed whole at the start of search `identity` (the estimates' base): read back
/// on --resume (so resumed estimates are made as the first ones were), else measured and
/// recorded as candidate 0 of "<identity>#original", its wall seconds in the detail.
StartTiming startTiming(const ir::Graph &inference, const SearchOptions &options, TuningDb &db,
                        const std::string &identity) {
  const std::string search = identity + "#original";
  if (options.resume)
    for (const TuningRecord &record : db.searchRecords(search))
      return {record.seconds, nlohmann::json::parse(record.detail).value("wall_seconds", 0.0)};
  const Clock::time_point start = Clock::now();
  const StartTiming timing{measureAs(options, inference, {}).seconds, since(start)};
  db.add({"original", targetKey(options.measure.target), nascVersion(), search, 0, "measured",
          timing.seconds, nlohmann::json{{"wall_seconds", timing.wallSeconds}}.dump()});
  return timing;
}

/// The schedule choices (LayerTimes::tune) of every distinct Conv workload of `graphs`, measured
/// the slowest by its default trace first, so that a tune deadline leaves the workloads that
/// matter least with fewer choices tried.
TunedWorkloads tuneSlowestFirst(const std::vector<ir::Graph> &graphs, LayerTimes &layers) {
  std::vector<std::pair<double, ConvWorkload>> workloads;
  std::set<std::string> seen;
  for (const ir::Graph &graph : graphs)
    for (ConvWorkload &workload : convWorkloads(graph))
      if (seen.insert(workload.key).second)
        workloads.emplace_back(layers.seconds(workload), std::move(workload));
  std::stable_sort(workloads.begin(), workloads.end(),
                   [](const auto &a, const auto &b) { return a.first > b.first; });
  TunedWorkloads tuned;
  for (const auto &[seconds, workload] : workloads)
    tuned[workload.key] = layers.tune(workload);
  return tuned;
}

/// The bytes of `path`. Throws nasc::Error when it cannot be read.
std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot read the model file");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

const std::vector<std::string> &strategyNames() {
  static const std::vector<std::string> names = {"random", "evolution", "layerwise"};
  return names;
}

const std::string &strategyName(Strategy strategy) {
  return strategyNames().at(static_cast<size_t>(strategy));
}

Strategy parseStrategy(const std::string &name) {
  return static_cast<Strategy>(nameIndex(strategyNames(), name, "search: unknown strategy"));
}

nas::GateParams gateParamsFor(const SearchOptions &options, size_t touchedConvs) {
  nas::GateParams params = options.gate;
  if (options.policy == nas::Policy::Synflow && options.synflowPerLayer > 0)
    params.tolerances[nas::Policy::Synflow] =
        options.synflowPerLayer * static_cast<double>(touchedConvs);
  return params;
}

std::string searchIdentity(const std::string &modelPath, const SearchOptions &options) {
  const std::string bytes = readBytes(modelPath);
  const uLong crc = crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef *>(bytes.data()),
                          static_cast<uInt>(bytes.size()));
  char hex[16];
  std::snprintf(hex, sizeof hex, "%08lx", static_cast<unsigned long>(crc));
  std::string transforms;
  for (const std::string &name : options.transforms)
    transforms += (transforms.empty() ? " transforms " : ",") + name;
  return std::string("model ") + hex + " seed " + std::to_string(options.seed) + " strategy " +
         strategyName(options.strategy) + " policy " + nas::policyName(options.policy) +
         " per-layer " + std::to_string(options.synflowPerLayer) + transforms +
         (options.gate.expansionRule ? "" : " no-expansion-rule") + " ln-synflow threads " +
         std::to_string(options.measure.threads) + " target " + targetKey(options.measure.target);
}

SearchResult runSearch(const std::string &modelPath, const SearchOptions &options, TuningDb &db,
                       const std::function<void(const Progress &)> &progress,
                       const std::function<bool()> &stop) {
  const Clock::time_point start = Clock::now();
  SearchResult result;
  result.identity = searchIdentity(modelPath, options);
  const ir::Graph original = nas::loadForTraining(modelPath);
  const ir::Graph inference = ir::loadModel(modelPath);
  const nas::ModelCost cost = nas::modelCost(original);
  result.originalFlops = cost.flops;
  result.originalParams = cost.params;
  const nas::CapacityGate gate(original, options.policy, options.capacity, options.gate,
                               nas::proxiesOf(options.policy));
  result.originalProxies = gate.original().proxies;
  const StartTiming startTimed = startTiming(inference, options, db, result.identity);
  result.originalSeconds = startTimed.seconds;
  LayerTimes layers(db, result.identity, options);
  layers.setTuneStop(stop);
  const double originalConvSeconds = convSeconds(original, layers);
  result.otherSeconds = std::max(0.0, result.originalSeconds - originalConvSeconds);
  const double baselineSeconds = result.otherSeconds + originalConvSeconds;
  std::optional<Layerwise> layerwise;
  if (options.strategy == Strategy::Layerwise) {
    LayerwiseOptions layerwiseOptions;
    layerwiseOptions.transforms = options.transforms;
    if (options.policy == nas::Policy::Synflow)
      layerwiseOptions.weightFloor = options.gate.layerWeightFloor;
    layerwise.emplace(original, layerwiseOptions);
  }

  std::map<int64_t, TuningRecord> recorded;
  if (options.resume)
    for (TuningRecord &record : db.searchRecords(result.identity))
      recorded.emplace(record.index, std::move(record));
  const std::string target = targetKey(options.measure.target);
  result.phaseSeconds["setup"] = since(start);
  const BudgetPlan plan =
      planBudget(options.seconds, since(start), startTimed.wallSeconds, options.finalists);
  Progress state{0, options.candidates, since(start), options.seconds, 0, 0};
  for (int64_t i = 0; withinBudget(options, i, since(start), plan.exploreEnd) && !stop(); ++i) {
    if (auto old = recorded.find(i); old != recorded.end()) {
      result.candidates.push_back(fromRecord(old->second));
    } else {
      CandidateResult c =
          evaluate(i, draw(i, original, options, result.candidates, layerwise, baselineSeconds),
                   options, gate, layers, result.otherSeconds, result.phaseSeconds);
      result.candidates.push_back(std::move(c));
      db.add(toRecord(result.candidates.back(), result.identity, target));
    }
    const CandidateResult &c = result.candidates.back();
    state.done = i + 1;
    state.elapsed = since(start);
    state.refused += c.status == "refused" ? 1 : 0;
    if (c.status == "measured" && c.estimate > 0)
      state.bestSpeedup = std::max(state.bestSpeedup, baselineSeconds / c.estimate);
    progress(state);
  }

  result.phaseSeconds["layers"] = layers.spentSeconds();
  const Clock::time_point schedules = Clock::now();
  auto enterPhase = [&](const char *phase) {
    state.phase = phase;
    state.elapsed = since(start);
    progress(state);
  };
  enterPhase("schedules");
  if (options.candidates == 0)
    layers.setTuneDeadline(start + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(plan.schedulesEnd)));
  const std::vector<const CandidateResult *> best =
      bestEstimates(result.candidates, options.finalists);
  std::vector<ir::Graph> networks;
  for (const CandidateResult *c : best)
    networks.push_back(nas::applyNeuralSteps(original, c->steps));
  networks.push_back(original);
  const TunedWorkloads tunedWorkloads =
      best.empty() ? TunedWorkloads{} : tuneSlowestFirst(networks, layers);
  for (size_t f = 0; f < best.size(); ++f) {
    Timed tuned = tuneNetwork(networks[f], tunedWorkloads, result.otherSeconds);
    tuned.index = best[f]->index;
    tuned.steps = best[f]->steps;
    tuned.estimate = best[f]->estimate;
    result.finalists.push_back(std::move(tuned));
  }
  if (!result.finalists.empty()) {
    result.tunedOriginal = tuneNetwork(original, tunedWorkloads, result.otherSeconds);
    result.tunedOriginal.index = -1;
  }
  result.phaseSeconds["schedules"] = since(schedules);

  const Clock::time_point finalists = Clock::now();
  enterPhase("finalists");
  for (Timed &finalist : result.finalists)
    timeWhole(inference, finalist, options);
  if (!result.finalists.empty()) { // the originals timed as long and as late as the finalists
    result.originalSeconds = measureAs(wholeNetwork(options), inference, {}).seconds;
    timeWhole(inference, result.tunedOriginal, options);
  }
  result.phaseSeconds["finalists"] = since(finalists);
  const double baseline = result.tunedOriginal.reason.empty() && result.tunedOriginal.seconds > 0
                              ? std::min(result.originalSeconds, result.tunedOriginal.seconds)
                              : result.originalSeconds;
  for (size_t f = 0; f < result.finalists.size(); ++f)
    if (result.finalists[f].reason.empty() && result.finalists[f].seconds < baseline &&
        (!result.best || result.finalists[f].seconds < result.finalists[*result.best].seconds))
      result.best = f;
  result.layersMeasured = layers.measured();
  result.wallSeconds = since(start);
  return result;
}

} // namespace nasc::search
