#include "compiler/search/SearchOutputs.h"

#include "compiler/Pipeline.h"
#include "compiler/SharedLibrary.h"
#include "compiler/nas/FisherMeasurement.h"
#include "compiler/nas/InitWeights.h"
#include "compiler/nas/ModelCost.h"
#include "compiler/nas/NeuralTrace.h"
#include "compiler/search/ConvWorkload.h"
#include "compiler/search/LayerTimes.h"
#include "compiler/search/ParetoPlot.h"
#include "ir/export/OnnxExporter.h"
#include "ir/import/ModelLoader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace nasc::search {

namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

/// Writes `path` through `write(temporary path)`, then renames it into place.
template <typename Write> void writeAtomically(const fs::path &path, Write write) {
  const fs::path temporary = path.string() + ".partial";
  write(temporary.string());
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error)
    throw Error(path.string() + ": cannot write (" + error.message() + ")");
}

void writeText(const fs::path &path, const std::string &text) {
  writeAtomically(path, [&](const std::string &temporary) {
    std::ofstream out(temporary);
    out << text;
    if (!out)
      throw Error(path.string() + ": cannot write");
  });
}

/// The choices of `node`, the default trace's when `choices` has none.
compiler::TraceChoices choiceOf(const NodeChoices &choices, const std::string &node) {
  auto it = choices.find(node);
  return it == choices.end() ? compiler::TraceChoices{} : it->second;
}

/// {node: "block=8 jam=2"} of `choices`.
Json choicesJson(const NodeChoices &choices) {
  Json json = Json::object();
  for (const auto &[node, chosen] : choices)
    json[node] = compiler::choicesText(chosen);
  return json;
}

/// Whether Conv `name` of a candidate is the original Conv `node` or one of its parts (seq1,
/// seq2, seq3 name them `<node>_<suffix>`).
bool partOf(const std::string &name, const std::string &node) {
  return name == node || name.rfind(node + "_", 0) == 0;
}

/// FLOP, parameters and measured seconds (its workloads' records with `choices`; 0 when none)
/// of the Convs of `graph` that are `node` or its parts.
Json layerCost(const ir::Graph &graph, const std::string &node, const NodeChoices &choices,
               const TuningDb &db, const std::string &target) {
  double flops = 0;
  int64_t params = 0;
  for (const nas::NodeCost &cost : nas::modelCost(graph).nodes)
    if (cost.op == "Conv" && partOf(cost.node, node)) {
      flops += cost.flops;
      params += cost.params;
    }
  double seconds = 0;
  for (const ConvWorkload &workload : convWorkloads(graph))
    if (partOf(workload.node, node))
      if (std::optional<TuningRecord> record = db.best(
              workloadRecordKey(workload, choiceOf(choices, workload.node)), target, nascVersion()))
        seconds += record->seconds;
  return {{"flops", flops}, {"params", params}, {"seconds", seconds}};
}

Json stepsJson(const std::vector<nas::NeuralStep> &steps) {
  Json list = Json::array();
  for (const nas::NeuralStep &step : steps)
    list.push_back(step.toString());
  return list;
}

/// The per-layer rows: each Conv of the original that a step of `best` transforms, its latency
/// before with the tuned original's choices, after with the best's.
Json layerRows(const ir::Graph &original, const ir::Graph &transformed, const SearchResult &result,
               const TuningDb &db, const std::string &target) {
  const std::vector<nas::NeuralStep> &steps = result.finalists[*result.best].steps;
  Json rows = Json::array();
  std::vector<std::string> nodes;
  for (const nas::NeuralStep &step : steps)
    if (std::find(nodes.begin(), nodes.end(), step.node) == nodes.end())
      nodes.push_back(step.node);
  for (const std::string &node : nodes) {
    std::vector<nas::NeuralStep> own;
    for (const nas::NeuralStep &step : steps)
      if (step.node == node)
        own.push_back(step);
    rows.push_back({{"node", node},
                    {"steps", stepsJson(own)},
                    {"before", layerCost(original, node, result.tunedOriginal.choices, db, target)},
                    {"after", layerCost(transformed, node, result.finalists[*result.best].choices,
                                        db, target)}});
  }
  return rows;
}

Json candidateCounts(const SearchResult &result) {
  Json counts{{"total", result.candidates.size()}};
  for (const char *status : {"measured", "refused", "wrong", "failed"}) {
    int64_t n = 0;
    for (const CandidateResult &c : result.candidates)
      n += c.status == status ? 1 : 0;
    counts[status] = n;
  }
  return counts;
}

Json reportJson(const std::string &modelPath, const SearchResult &result,
                const SearchOptions &options, const ir::Graph &original, const TuningDb &db) {
  const std::string target = targetKey(options.measure.target);
  Json report{
      {"model", modelPath},
      {"search", result.identity},
      {"target", target},
      {"cpu", options.measure.target.cpu},
      {"nasc", nascVersion()},
      {"strategy", strategyName(options.strategy)},
      {"policy", nas::policyName(options.policy)},
      {"seed", options.seed},
      {"threads", options.measure.threads},
      {"budget", options.candidates > 0 ? Json{{"candidates", options.candidates}}
                                        : Json{{"seconds", options.seconds}}},
      {"wall_seconds", result.wallSeconds},
      {"phase_seconds", result.phaseSeconds},
      {"candidates_per_second", result.candidates.size() / std::max(result.wallSeconds, 1e-9)},
      {"candidates", candidateCounts(result)},
      {"layers_measured", result.layersMeasured},
      {"original",
       {{"seconds", result.originalSeconds},
        {"flops", result.originalFlops},
        {"params", result.originalParams},
        {"proxies", result.originalProxies}}},
      {"tuned_original",
       {{"seconds", result.tunedOriginal.seconds},
        {"estimate_seconds", result.tunedOriginal.tunedEstimate},
        {"choices", choicesJson(result.tunedOriginal.choices)},
        {"reason", result.tunedOriginal.reason}}}};
  Json finalists = Json::array();
  for (const Timed &f : result.finalists)
    finalists.push_back({{"index", f.index},
                         {"steps", stepsJson(f.steps)},
                         {"estimate_seconds", f.estimate},
                         {"tuned_estimate_seconds", f.tunedEstimate},
                         {"choices", choicesJson(f.choices)},
                         {"seconds", f.seconds},
                         {"reason", f.reason}});
  report["finalists"] = finalists;
  report["best"] = nullptr;
  report["layers"] = Json::array();
  if (!result.best)
    return report;
  const Timed &best = result.finalists[*result.best];
  const CandidateResult &candidate =
      *std::find_if(result.candidates.begin(), result.candidates.end(),
                    [&](const CandidateResult &c) { return c.index == best.index; });
  const ir::Graph transformed = nas::applyNeuralSteps(original, best.steps);
  const double tuned = result.tunedOriginal.seconds;
  report["best"] = {{"index", best.index},
                    {"steps", stepsJson(best.steps)},
                    {"choices", choicesJson(best.choices)},
                    {"seconds", best.seconds},
                    {"estimate_seconds", best.estimate},
                    {"tuned_estimate_seconds", best.tunedEstimate},
                    {"speedup", result.originalSeconds / best.seconds},
                    {"speedup_vs_tuned", tuned > 0 ? Json(tuned / best.seconds) : Json(nullptr)},
                    {"flops", candidate.flops},
                    {"params", candidate.params},
                    {"proxies", candidate.proxies},
                    {"capacity", Json::parse(candidate.capacity)}};
  report["layers"] = layerRows(original, transformed, result, db, target);
  return report;
}

/// model.onnx, schedule.json, libmodel.so and model.h of the best candidate.
void writeBest(const fs::path &dir, const std::string &modelPath, const SearchResult &result,
               const SearchOptions &options, const ir::Graph &original,
               const std::string &capacity) {
  const Timed &best = result.finalists[*result.best];
  ir::Graph architecture = nas::applyNeuralSteps(original, best.steps);
  nas::initWeights(architecture, options.seed);
  const std::string transformations = nas::stepsText(best.steps);
  writeAtomically(dir / "model.onnx", [&](const std::string &path) {
    ir::exportOnnx(architecture, path,
                   {{"nasc.source", modelPath},
                    {"nasc.transformations", transformations},
                    {"nasc.capacity", capacity}});
  });
  const compiler::ModelSchedule schedule = withChoices(
      nas::neuralSchedule(best.steps, (dir / "schedule.json").string(), capacity), best.choices);
  writeText(dir / "schedule.json", compiler::scheduleToJson(schedule));
  compiler::CompileOptions compile;
  compile.target = options.measure.target;
  compile.threads = options.measure.threads;
  const compiler::PolyhedralModel model =
      compiler::lowerToPolyhedral(ir::loadModel(modelPath), schedule, compile.target.vector);
  writeAtomically(dir / "libmodel.so", [&](const std::string &so) {
    writeAtomically(dir / "model.h", [&](const std::string &header) {
      compiler::emitSharedLibrary(model, compile, so, header);
    });
  });
}

/// "12.3 ms".
std::string ms(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  return text;
}

std::string number(double value, const char *format) {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

/// The gate proxy of `policy` a plot shows, relative to the original: ln(new) − ln(original) for
/// synflow (whose values are already natural logs: new − original) and fisher, new − original
/// for the others; and its label.
std::pair<double, std::string> relativeProxy(nas::Policy policy,
                                             const std::map<std::string, double> &candidate,
                                             const std::map<std::string, double> &original) {
  const std::string name = nas::proxiesOf(policy).front();
  const double value = candidate.at(name), reference = original.at(name);
  if (name == "synflow")
    return {value - reference, "ln synflow: new - original"};
  if (name == "fisher")
    return {std::log(value) - std::log(reference), name + ": ln(new) - ln(original)"};
  return {value - reference, name + ": new - original"};
}

/// pareto.svg: every measured candidate's estimate against its gate proxy, the best marked.
void writePlot(const fs::path &path, const std::string &modelPath, const SearchResult &result,
               const SearchOptions &options) {
  std::vector<PlotPoint> points;
  std::string label = nas::proxiesOf(options.policy).front();
  for (const CandidateResult &c : result.candidates) {
    if (c.status != "measured")
      continue;
    const auto [proxy, name] = relativeProxy(options.policy, c.proxies, result.originalProxies);
    label = name;
    const bool best = result.best && result.finalists[*result.best].index == c.index;
    points.push_back({c.estimate, proxy, true, best});
  }
  writeParetoSvg(path.string(), points, result.originalSeconds, label,
                 fs::path(modelPath).filename().string() + ": " +
                     std::to_string(result.candidates.size()) + " candidates");
}

} // namespace

std::string reportMarkdown(const std::string &reportJson) {
  const Json report = Json::parse(reportJson);
  const Json &original = report["original"], &counts = report["candidates"];
  std::string md = "# nasc search: " + report["model"].get<std::string>() + "\n\n" + "CPU " +
                   report["cpu"].get<std::string>() + ", " +
                   std::to_string(report["threads"].get<int>()) + " thread(s), strategy " +
                   report["strategy"].get<std::string>() + ", policy " +
                   report["policy"].get<std::string>() + ", seed " +
                   std::to_string(report["seed"].get<uint64_t>()) + ". " +
                   std::to_string(counts["total"].get<int64_t>()) + " candidates in " +
                   number(report["wall_seconds"].get<double>(), "%.0f") + " s (" +
                   number(report["candidates_per_second"].get<double>(), "%.2f") +
                   " per second): " + std::to_string(counts["measured"].get<int64_t>()) +
                   " measured, " + std::to_string(counts["refused"].get<int64_t>()) + " refused, " +
                   std::to_string(counts["wrong"].get<int64_t>()) + " wrong, " +
                   std::to_string(counts["failed"].get<int64_t>()) + " failed. Wall time:";
  for (const char *phase : {"setup", "gate", "layers", "schedules", "finalists"})
    if (report["phase_seconds"].contains(phase))
      md += std::string(" ") + phase + " " +
            number(report["phase_seconds"][phase].get<double>(), "%.0f") + " s,";
  md.back() = '.';
  md += "\n\n";
  const Json &tuned = report["tuned_original"];
  if (report["best"].is_null())
    return md + "No legal candidate ran faster than the original (" +
           ms(original["seconds"].get<double>()) +
           (tuned["seconds"].get<double>() > 0
                ? "; " + ms(tuned["seconds"].get<double>()) + " with its own schedule search"
                : std::string()) +
           ").\n";
  const Json &best = report["best"];
  md += "| | original | searched | ratio |\n|---|---|---|---|\n";
  auto row = [&](const std::string &name, double before, double after, const char *format) {
    md += "| " + name + " | " + number(before, format) + " | " + number(after, format) + " | " +
          number(after / before, "%.3g") + " |\n";
  };
  auto logRow = [&](const std::string &name, double before, double after) {
    md += "| " + name + " | " + number(before, "%.4g") + " | " + number(after, "%.4g") + " | " +
          number(std::exp(after - before), "%.3g") + " |\n";
  };
  row("latency (ms)", original["seconds"].get<double>() * 1e3, best["seconds"].get<double>() * 1e3,
      "%.3f");
  row("MFLOP", original["flops"].get<double>() * 1e-6, best["flops"].get<double>() * 1e-6, "%.1f");
  row("parameters (M)", original["params"].get<double>() * 1e-6,
      best["params"].get<double>() * 1e-6, "%.3f");
  for (const auto &[proxy, value] : best["proxies"].items())
    if (proxy == "synflow" && original["proxies"].contains(proxy))
      logRow("ln synflow", original["proxies"][proxy].get<double>(), value.get<double>());
    else if (original["proxies"].contains(proxy))
      row(proxy, original["proxies"][proxy].get<double>(), value.get<double>(), "%.4g");
  md += "\nSpeed-up " + number(best["speedup"].get<double>(), "%.2f") + "x over the original " +
        "with nasc's default schedules" +
        (best["speedup_vs_tuned"].is_null()
             ? std::string(".")
             : ", " + number(best["speedup_vs_tuned"].get<double>(), "%.2f") +
                   "x over the original with its own schedule search (" +
                   ms(tuned["seconds"].get<double>()) +
                   (tuned["seconds"].get<double>() > original["seconds"].get<double>()
                        ? ", slower whole than with the default schedules"
                        : "") +
                   ").") +
        "\n\n" + "| layer | steps | MFLOP before | after | latency before | after |\n" +
        "|---|---|---|---|---|---|\n";
  for (const Json &layer : report["layers"]) {
    std::string steps;
    for (const Json &step : layer["steps"])
      steps += (steps.empty() ? "" : ", ") + step.get<std::string>();
    md += "| " + layer["node"].get<std::string>() + " | " + steps + " | " +
          number(layer["before"]["flops"].get<double>() * 1e-6, "%.2f") + " | " +
          number(layer["after"]["flops"].get<double>() * 1e-6, "%.2f") + " | " +
          ms(layer["before"]["seconds"].get<double>()) + " | " +
          ms(layer["after"]["seconds"].get<double>()) + " |\n";
  }
  return md;
}

std::vector<std::string> writeSearchOutputs(const std::string &dir, const std::string &modelPath,
                                            const SearchResult &result,
                                            const SearchOptions &options, const TuningDb &db) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error)
    throw Error(dir + ": cannot create the output directory (" + error.message() + ")");
  const ir::Graph original = nas::loadForTraining(modelPath);
  const Json report = reportJson(modelPath, result, options, original, db);
  std::vector<std::string> written;
  if (result.best) {
    writeBest(dir, modelPath, result, options, original, report["best"]["capacity"].dump());
    written = {"model.onnx", "schedule.json", "libmodel.so", "model.h"};
  }
  writeText(fs::path(dir) / "report.json", report.dump(2) + "\n");
  writeText(fs::path(dir) / "report.md", reportMarkdown(report.dump()));
  writePlot(fs::path(dir) / "pareto.svg", modelPath, result, options);
  written.insert(written.end(), {"report.json", "report.md", "pareto.svg"});
  return written;
}

} // namespace nasc::search
