#include "compiler/search/Search.h"
#include "compiler/nas/NeuralRegistry.h"
#include "compiler/search/SearchOutputs.h"
#include "ir/import/ModelLoader.h"
#include "tools/nasc/Commands.h"
#include "tools/nasc/GateArgs.h"
#include "tools/nasc/ModelArgs.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <vector>

namespace nasc::cli {

namespace {

struct SearchArgs : GateArgs, ModelArgs {
  /// The gate's seeds measured side by side on every core (up to the seeds): the search waits
  /// for the gate, so nothing else runs meanwhile.
  SearchArgs() {
    GateArgs::threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u,
                                                    static_cast<unsigned>(GateArgs::seeds)));
  }
  std::string budget = "100c", out, strategy = "random"; // --db: ModelArgs::db
  std::vector<std::string> transforms;
  int threads = 1;
  double childTimeout = 300;
  double perLayer = search::kSynflowPerLayer;
  bool resume = false;
};

/// The internal verb a search runs each measurement in (search::measureInChild).
struct MeasureArgs {
  std::string graph, schedule, cpu;
  search::MeasureOptions options;
};

/// Measures args.graph with its schedule; prints search::measurementLine, or failureLine when
/// measuring fails (the exit status stays 0: the answer is the line).
void measureWorkload(MeasureArgs &args) {
  std::string line;
  try {
    args.options.target = codegen::resolveTarget("native", args.cpu);
    line = search::measurementLine(search::measure(
        ir::loadModel(args.graph), compiler::readScheduleFile(args.schedule), args.options));
  } catch (const Error &e) {
    line = search::failureLine(e);
  }
  std::printf("%s\n", line.c_str());
}

/// Set by SIGINT / SIGTERM: the search stops after the candidate it is on and writes its best.
std::atomic<bool> stopRequested{false};

void requestStop(int) {
  stopRequested = true;
  std::signal(SIGINT, SIG_DFL); // a second Ctrl-C ends the process
  std::signal(SIGTERM, SIG_DFL);
}

/// Sets options.candidates or options.seconds from --budget: "500c" (candidates), "90s", "10m",
/// "1h". Throws nasc::Error for another form.
void parseBudget(const std::string &text, search::SearchOptions &options) {
  std::istringstream in(text);
  double amount = 0;
  std::string unit;
  if (!(in >> amount) || !(in >> unit) || amount <= 0 || !in.eof() ||
      (unit != "c" && unit != "s" && unit != "m" && unit != "h"))
    throw Error("search: --budget '" + text +
                "': expected a count of candidates (500c) or a duration (90s, 10m, 1h)");
  if (unit == "c")
    options.candidates = static_cast<int64_t>(amount);
  else
    options.seconds = amount * (unit == "s" ? 1 : unit == "m" ? 60 : 3600);
}

/// A bar redrawn in place on a terminal; otherwise one plain line every 5 seconds and one at each
/// phase's start. Time left: of the budget (a duration), else at the candidates' rate so far.
void printProgress(const search::Progress &p) {
  static double lastLine = -1e9;
  static std::string lastPhase = p.phase;
  const bool terminal = isatty(STDOUT_FILENO);
  const double fraction =
      p.budget > 0 ? double(p.done) / p.budget : std::min(1.0, p.elapsed / p.budgetSeconds);
  const double left = p.budget > 0 ? (fraction > 0 ? p.elapsed * (1 - fraction) / fraction : 0)
                                   : std::max(0.0, p.budgetSeconds - p.elapsed);
  const bool newPhase = p.phase != lastPhase;
  lastPhase = p.phase;
  if (!terminal && p.elapsed - lastLine < 5 && fraction < 1 && !newPhase)
    return;
  lastLine = p.elapsed;
  std::string bar(20, '.');
  std::fill(bar.begin(), bar.begin() + static_cast<long>(fraction * 20), '#');
  std::printf("%s[%s] %s: %lld candidates, best %.2fx, %lld refused, %.2f/s, %.0f s left%s",
              !terminal  ? ""
              : newPhase ? "\n"
                         : "\r",
              bar.c_str(), p.phase.c_str(), static_cast<long long>(p.done), p.bestSpeedup,
              static_cast<long long>(p.refused), p.done / std::max(p.elapsed, 1e-9), left,
              terminal ? "  " : "\n");
  std::fflush(stdout);
}

int runSearchCommand(SearchArgs &args) {
  search::SearchOptions options;
  parseBudget(args.budget, options);
  options.seed = args.seed;
  options.strategy = search::parseStrategy(args.strategy);
  options.policy = nas::parsePolicy(args.policy);
  options.gate = gateParams(args, options.policy);
  options.synflowPerLayer = args.perLayer;
  for (const std::string &name : args.transforms)
    nas::findNeuralTransform(name, "search: --transforms");
  options.transforms = args.transforms;
  if (args.tolerance && args.perLayer > 0 && options.policy == nas::Policy::Synflow)
    throw Error("search: --tolerance is the whole network's synflow tolerance; give "
                "--tolerance-per-layer 0 with it (the default scales the tolerance by the Convs a "
                "candidate changes)");
  options.capacity = capacityOptions(args);
  options.measure.target = args.target();
  options.measure.threads = args.threads;
  options.resume = args.resume;
  options.childExecutable = std::filesystem::read_symlink("/proc/self/exe").string();
  options.childTimeoutSeconds = args.childTimeout;
  std::filesystem::create_directories(args.out);
  const std::string dbPath = args.db.empty() ? args.out + "/tuning.db" : args.db;
  search::TuningDb db(dbPath);
  std::signal(SIGINT, requestStop);
  std::signal(SIGTERM, requestStop);
  const search::SearchResult result = search::runSearch(args.model, options, db, printProgress,
                                                        [] { return stopRequested.load(); });
  std::printf("%s", isatty(STDOUT_FILENO) ? "\n" : "");
  const std::vector<std::string> written =
      search::writeSearchOutputs(args.out, args.model, result, options, db);
  std::ifstream report(args.out + "/report.md");
  std::string names;
  for (const std::string &name : written)
    names += (names.empty() ? "" : ",") + name;
  std::cout << report.rdbuf() << "wrote " << args.out << "/{" << names << "}; records in " << dbPath
            << "\n";
  return 0;
}

} // namespace

void addSearchCommand(CLI::App &app) {
  auto args = std::make_shared<SearchArgs>();
  CLI::App *cmd = app.add_subcommand(
      "search", "Search MODEL's neural and schedule transformations (docs/search.md): "
                "candidates, each judged by the capacity gate, its Conv layers compiled, "
                "checked against the reference executor and timed here; the best and the "
                "original get each layer's fastest schedule choices and are timed whole");
  cmd->add_option("MODEL", args->model, "Model file (.onnx or .json)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--budget", args->budget,
                  "Candidates (500c: deterministic for a seed) or the search's whole wall time "
                  "(90s, 10m, 1h: setup, exploration, schedule choices, timing the finalists "
                  "and writing the outputs)")
      ->capture_default_str();
  cmd->add_option("--out", args->out,
                  "Output directory: model.onnx, schedule.json, libmodel.so, model.h, "
                  "report.json, report.md, pareto.svg (and tuning.db unless --db)")
      ->required();
  cmd->add_option("--db", args->db, "Tuning database (SQLite; default OUT/tuning.db)");
  cmd->add_flag("--resume", args->resume,
                "Continue the search of the same model, seed, policy, threads and CPU recorded "
                "in the database: recorded candidates are read back, not drawn again");
  cmd->add_option("--strategy", args->strategy,
                  "How candidates are drawn: random (the paper's; deterministic for a seed and "
                  "a candidate budget), evolution (bred from the fastest measured, chosen by "
                  "an XGBoost cost model fitted on the measurements so far) or layerwise (each "
                  "step tried alone on one Conv of each layer shape, then networks composed of "
                  "the fastest that passed the gate)")
      ->check(CLI::IsMember(search::strategyNames()))
      ->capture_default_str();
  std::string names;
  for (const nas::NeuralTransform &t : nas::neuralTransforms())
    names += (names.empty() ? "" : ",") + t.name;
  cmd->add_option("--transforms", args->transforms,
                  "The neural transformations whose steps the search draws, comma-separated (" +
                      names + "; docs/transformations.md); default: all")
      ->delimiter(',');
  cmd->add_option("--threads", args->threads, "Threads of the timed runs")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--tolerance-per-layer", args->perLayer,
                  "With --policy synflow: the tolerance in ln synflow per Conv a candidate's "
                  "steps change (a candidate changing n Convs may lose n times it); 0: the "
                  "whole-network --tolerance")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--child-timeout", args->childTimeout,
                  "Seconds after which the child process measuring one layer or network is "
                  "killed (its candidate then fails and the search goes on)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  addTargetOptions(*cmd, *args, false);
  cmd->add_option("--seed", args->seed,
                  "Seed of the candidates' draws, of the gate's He initialisations and of "
                  "model.onnx's weights")
      ->capture_default_str();
  addGateOptions(*cmd, *args, {.seed = false, .threads = "--gate-threads", .policyOnly = false});
  cmd->callback([args] { runSearchCommand(*args); });

  auto measure = std::make_shared<MeasureArgs>();
  CLI::App *child = app.add_subcommand("measure-workload", "");
  child->group(""); // internal: what a search runs in its child processes
  child->add_option("GRAPH", measure->graph)->required();
  child->add_option("--schedule", measure->schedule)->required();
  child->add_option("--threads", measure->options.threads);
  child->add_option("--repeat", measure->options.repeat);
  child->add_option("--min-seconds", measure->options.minSeconds);
  child->add_option("--flush-bytes", measure->options.flushBytes);
  child->add_option("--cpu", measure->cpu)->required();
  child->callback([measure] { measureWorkload(*measure); });
}

} // namespace nasc::cli
