#include "compiler/search/LayerTimes.h"

#include "compiler/nas/NeuralTrace.h"
#include "compiler/search/ScheduleSpace.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace nasc::search {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

nlohmann::json choicesJson(const compiler::TraceChoices &choices) {
  nlohmann::json json = nlohmann::json::object();
  for (const compiler::TraceChoiceMember &member : compiler::kTraceChoiceMembers)
    json[member.name] = choices.*member.value;
  return json;
}

} // namespace

std::string workloadRecordKey(const ConvWorkload &workload, const compiler::TraceChoices &choices) {
  const std::string text = compiler::choicesText(choices);
  return text.empty() ? workload.key : workload.key + " schedule " + text;
}

compiler::ModelSchedule withChoices(compiler::ModelSchedule schedule, const NodeChoices &choices) {
  for (const auto &[node, chosen] : choices) {
    if (chosen == compiler::TraceChoices{})
      continue;
    auto entry = std::find_if(schedule.kernels.begin(), schedule.kernels.end(),
                              [&](const compiler::KernelSchedule &k) { return k.node == node; });
    if (entry == schedule.kernels.end())
      entry = schedule.kernels.insert(schedule.kernels.end(), {node, {}});
    else if (!nas::onlyNeuralSteps(*entry))
      continue;
    entry->steps.push_back(compiler::defaultTraceStep(chosen));
  }
  return schedule;
}

NodeChoices tunedChoices(const ir::Graph &graph, const TuningDb &db,
                         const codegen::Target &target) {
  const std::string key = targetKey(target);
  NodeChoices choices;
  for (const ConvWorkload &workload : convWorkloads(graph)) {
    std::optional<TunedLayer> best;
    for (const compiler::TraceChoices &c : traceChoiceSpace(target.vector))
      if (std::optional<TuningRecord> record =
              db.best(workloadRecordKey(workload, c), key, nascVersion()))
        if (!best || record->seconds < best->seconds)
          best = TunedLayer{c, record->seconds};
    if (best && best->choices != compiler::TraceChoices{})
      choices[workload.node] = best->choices;
  }
  return choices;
}

Measurement measureAs(const SearchOptions &options, const ir::Graph &graph,
                      const compiler::ModelSchedule &schedule) {
  return options.childExecutable.empty()
             ? measure(graph, schedule, options.measure)
             : measureInChild(graph, schedule, options.measure, options.childExecutable,
                              options.childTimeoutSeconds);
}

LayerTimes::LayerTimes(TuningDb &db, const std::string &search, const SearchOptions &options)
    : db_(db), search_(search + "#layers"), target_(targetKey(options.measure.target)),
      options_(options), next_(static_cast<int64_t>(db.searchRecords(search_).size())) {
  options_.measure.flushBytes = kLayerFlushBytes;
}

std::optional<double> LayerTimes::recorded(const std::string &key) {
  if (auto known = known_.find(key); known != known_.end())
    return known->second;
  if (auto failed = failed_.find(key); failed != failed_.end()) {
    if (failed->second.wrong)
      throw WrongOutput(failed->second.reason);
    throw Error(failed->second.reason);
  }
  if (std::optional<TuningRecord> record = db_.best(key, target_, nascVersion()))
    return known_[key] = record->seconds;
  return std::nullopt;
}

double LayerTimes::seconds(const ConvWorkload &workload, const compiler::TraceChoices &choices) {
  const std::string key = workloadRecordKey(workload, choices);
  if (std::optional<double> s = recorded(key))
    return *s;
  return measureNew(workload, choices, key);
}

TunedLayer LayerTimes::tune(const ConvWorkload &workload) {
  const codegen::VectorUnit &unit = options_.measure.target.vector;
  TunedLayer best{{}, seconds(workload)};
  auto tryEach = [&](const std::vector<compiler::TraceChoices> &candidates) {
    for (const compiler::TraceChoices &choices : distinctChoices(workload, unit, candidates))
      try {
        const std::string key = workloadRecordKey(workload, choices);
        std::optional<double> s = recorded(key);
        if (!s && Clock::now() < tuneDeadline_ && !tuneStop_())
          s = measureNew(workload, choices, key);
        if (s && *s < best.seconds)
          best = {choices, *s};
      } catch (const Error &) {
        // recorded as failed or wrong; the other choices stand
      }
  };
  std::vector<compiler::TraceChoices> ownOrder;
  for (const compiler::TraceChoices &choices : traceChoiceSpace(unit))
    if (choices.order == 0)
      ownOrder.push_back(choices);
  tryEach(ownOrder);
  tryEach(withEachOrder(best.choices));
  return best;
}

double LayerTimes::measureNew(const ConvWorkload &workload, const compiler::TraceChoices &choices,
                              const std::string &key) {
  TuningRecord record{key, target_, nascVersion(), search_, next_++, "measured", 0, ""};
  nlohmann::json detail{
      {"node", workload.node}, {"layer", workload.key}, {"choices", choicesJson(choices)}};
  const Clock::time_point start = Clock::now();
  try {
    const Measurement m = measureAs(options_, workload.graph,
                                    withChoices({"search", {}}, {{workload.node, choices}}));
    record.seconds = m.seconds;
    detail["compile_seconds"] = m.compileSeconds;
    detail["relative_error"] = m.relativeError;
    record.detail = detail.dump();
  } catch (const Error &e) {
    spent_ += since(start);
    const bool wrong = dynamic_cast<const WrongOutput *>(&e) != nullptr;
    record.status = wrong ? "wrong" : "failed";
    detail["reason"] = e.what();
    record.detail = detail.dump();
    db_.add(record);
    failed_[key] = {wrong, e.what()};
    throw;
  }
  spent_ += since(start);
  db_.add(record);
  ++measured_;
  return known_[key] = record.seconds;
}

} // namespace nasc::search
