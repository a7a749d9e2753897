#include "compiler/search/Search.h"

#include "compiler/nas/CapacityJson.h"
#include "compiler/nas/FisherMeasurement.h"
#include "compiler/nas/ModelCost.h"
#include "compiler/nas/NeuralTrace.h"
#include "compiler/search/ConvWorkload.h"
#include "compiler/search/SearchSpace.h"
#include "ir/import/ModelLoader.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

namespace nasc::search {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// "a:group(2); b:bottleneck(4)": the steps as one text (the workload of a candidate network).
std::string stepsText(const std::vector<nas::NeuralStep> &steps) {
  std::string text;
  for (const nas::NeuralStep &step : steps)
    text += (text.empty() ? "" : "; ") + step.toString();
  return text;
}

/// measure(), in a child process when options.childExecutable says so.
Measurement measureAs(const SearchOptions &options, const ir::Graph &graph,
                      const compiler::ModelSchedule &schedule) {
  return options.childExecutable.empty()
             ? measure(graph, schedule, options.measure)
             : measureInChild(graph, schedule, options.measure, options.childExecutable,
                              options.childTimeoutSeconds);
}

/// The seconds of each Conv workload of this target and nasc version: found in the db, else
/// measured (convWorkloads' graph, default schedule) and recorded under "<search>#layers". A
/// workload that failed fails again without being measured again.
class LayerTimes {
public:
  LayerTimes(TuningDb &db, const std::string &search, const SearchOptions &options)
      : db_(db), search_(search + "#layers"), target_(targetKey(options.measure.target)),
        options_(options), next_(static_cast<int64_t>(db.searchRecords(search_).size())) {}

  /// Seconds of one run of `workload`. Throws WrongOutput or nasc::Error as measure() does.
  double seconds(const ConvWorkload &workload) {
    if (auto known = known_.find(workload.key); known != known_.end())
      return known->second;
    if (auto failed = failed_.find(workload.key); failed != failed_.end()) {
      if (failed->second.wrong)
        throw WrongOutput(failed->second.reason);
      throw Error(failed->second.reason);
    }
    if (std::optional<TuningRecord> record = db_.best(workload.key, target_, nascVersion()))
      return known_[workload.key] = record->seconds;
    return measureNew(workload);
  }

  int64_t measured() const { return measured_; }
  /// Wall seconds spent measuring new workloads, failed ones included.
  double spentSeconds() const { return spent_; }

private:
  struct Failure {
    bool wrong;
    std::string reason;
  };

  double measureNew(const ConvWorkload &workload) {
    TuningRecord record{workload.key, target_, nascVersion(), search_, next_++, "measured", 0, ""};
    const Clock::time_point start = Clock::now();
    try {
      const Measurement m = measureAs(options_, workload.graph, {});
      record.seconds = m.seconds;
      record.detail = nlohmann::json{{"node", workload.node},
                                     {"compile_seconds", m.compileSeconds},
                                     {"relative_error", m.relativeError}}
                          .dump();
    } catch (const Error &e) {
      spent_ += since(start);
      const bool wrong = dynamic_cast<const WrongOutput *>(&e) != nullptr;
      record.status = wrong ? "wrong" : "failed";
      record.detail = nlohmann::json{{"node", workload.node}, {"reason", e.what()}}.dump();
      db_.add(record);
      failed_[workload.key] = {wrong, e.what()};
      throw;
    }
    spent_ += since(start);
    db_.add(record);
    ++measured_;
    return known_[workload.key] = record.seconds;
  }

  TuningDb &db_;
  std::string search_, target_;
  SearchOptions options_;
  int64_t next_ = 0, measured_ = 0;
  double spent_ = 0;
  std::map<std::string, double> known_;
  std::map<std::string, Failure> failed_;
};

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
  return {"network " + stepsText(candidate.steps),
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

/// Judges and estimates candidate `index`: drawn, gated, its layers measured; the wall time of
/// the gate added to `phases`.
CandidateResult evaluate(int64_t index, const ir::Graph &original, const SearchOptions &options,
                         const nas::CapacityGate &gate, LayerTimes &layers, double otherSeconds,
                         std::map<std::string, double> &phases) {
  std::mt19937_64 rng = candidateRng(options.seed, index);
  Candidate drawn = sampleCandidate(original, rng);
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
  std::stable_sort(measured.begin(), measured.end(), [](auto *a, auto *b) {
    return a->estimate < b->estimate;
  });
  std::vector<const CandidateResult *> best;
  std::set<std::string> seen;
  for (const CandidateResult *c : measured)
    if (static_cast<int>(best.size()) < count && seen.insert(stepsText(c->steps)).second)
      best.push_back(c);
  return best;
}

/// `options` for timing a whole network: at least 20 runs and a second of them.
SearchOptions wholeNetwork(SearchOptions options) {
  options.measure.repeat = std::max(options.measure.repeat, 20);
  options.measure.minSeconds = std::max(options.measure.minSeconds, 1.0);
  return options;
}

/// Candidate `c` compiled with its steps (a schedule of its neural steps on `inference`) and
/// timed whole (wholeNetwork); a failure kept as the finalist's reason.
Timed timeWhole(const ir::Graph &inference, const CandidateResult &c,
                const SearchOptions &options) {
  Timed timed{c.index, c.steps, 0, c.estimate, ""};
  try {
    const compiler::ModelSchedule schedule = nas::neuralSchedule(c.steps, "search", "");
    timed.seconds = measureAs(wholeNetwork(options), inference, schedule).seconds;
  } catch (const Error &e) {
    timed.reason = e.what();
  }
  return timed;
}

/// Whether the budget allows candidate `index` after `elapsed` seconds.
bool withinBudget(const SearchOptions &options, int64_t index, double elapsed) {
  return options.candidates > 0 ? index < options.candidates : elapsed < options.seconds;
}

/// The bytes of `path`. Throws nasc::Error when it cannot be read.
std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot read the model file");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

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
  return std::string("model ") + hex + " seed " + std::to_string(options.seed) + " policy " +
         nas::policyName(options.policy) + " per-layer " + std::to_string(options.synflowPerLayer) +
         " threads " + std::to_string(options.measure.threads) +
         " target " + targetKey(options.measure.target);
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
  result.originalSeconds = measureAs(options, inference, {}).seconds;
  LayerTimes layers(db, result.identity, options);
  result.otherSeconds = std::max(0.0, result.originalSeconds - convSeconds(original, layers));

  std::map<int64_t, TuningRecord> recorded;
  if (options.resume)
    for (TuningRecord &record : db.searchRecords(result.identity))
      recorded.emplace(record.index, std::move(record));
  const std::string target = targetKey(options.measure.target);
  const Clock::time_point explore = Clock::now();
  result.phaseSeconds["setup"] = since(start);
  Progress state{0, options.candidates, 0, options.seconds, 0, 0};
  for (int64_t i = 0; withinBudget(options, i, since(explore)) && !stop(); ++i) {
    if (auto old = recorded.find(i); old != recorded.end()) {
      result.candidates.push_back(fromRecord(old->second));
    } else {
      result.candidates.push_back(
          evaluate(i, original, options, gate, layers, result.otherSeconds, result.phaseSeconds));
      db.add(toRecord(result.candidates.back(), result.identity, target));
    }
    const CandidateResult &c = result.candidates.back();
    state.done = i + 1;
    state.elapsed = since(explore);
    state.refused += c.status == "refused" ? 1 : 0;
    if (c.status == "measured" && c.estimate > 0)
      state.bestSpeedup = std::max(state.bestSpeedup, result.originalSeconds / c.estimate);
    progress(state);
  }

  const Clock::time_point finalists = Clock::now();
  for (const CandidateResult *c : bestEstimates(result.candidates, options.finalists))
    result.finalists.push_back(timeWhole(inference, *c, options));
  if (!result.finalists.empty()) // the original timed again, as long and as late as they were
    result.originalSeconds = measureAs(wholeNetwork(options), inference, {}).seconds;
  result.phaseSeconds["finalists"] = since(finalists);
  for (size_t f = 0; f < result.finalists.size(); ++f)
    if (result.finalists[f].reason.empty() &&
        result.finalists[f].seconds < result.originalSeconds &&
        (!result.best || result.finalists[f].seconds < result.finalists[*result.best].seconds))
      result.best = f;
  result.layersMeasured = layers.measured();
  result.phaseSeconds["layers"] = layers.spentSeconds();
  result.wallSeconds = since(start);
  return result;
}

} // namespace nasc::search
