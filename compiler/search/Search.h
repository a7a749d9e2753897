// nasc search (docs/search.md): random exploration of neural steps per Conv layer, each
// candidate judged by the capacity gate in memory, its layers compiled, checked against the
// reference executor and timed for real (each layer shape once, records in a tuning database),
// the best candidates then compiled and timed whole.
#pragma once

#include "compiler/nas/CapacityGate.h"
#include "compiler/nas/NeuralStep.h"
#include "compiler/search/Measure.h"
#include "compiler/search/TuningDb.h"
#include "compiler/transforms/DefaultSchedule.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nasc::search {

/// The default SearchOptions::synflowPerLayer.
inline constexpr double kSynflowPerLayer = 0.75;

/// How a search draws its candidates (docs/search.md, "Strategies").
enum class Strategy {
  Random,    ///< sampleCandidate: the paper's random sampling, deterministic for a seed
  Evolution, ///< proposeCandidate: bred from the fastest, chosen by an XGBoost cost model
  Layerwise, ///< Layerwise::propose: each step tried alone, then the fastest composed
};

/// The CLI names, in the order of Strategy: random, evolution, layerwise.
const std::vector<std::string> &strategyNames();

/// The name of `strategy` (strategyNames).
const std::string &strategyName(Strategy strategy);

/// The strategy called `name`; throws nasc::Error listing the names otherwise.
Strategy parseStrategy(const std::string &name);

/// What a search explores and how long.
struct SearchOptions {
  int64_t candidates = 0; ///< Budget in candidates (deterministic for a seed); 0: `seconds` rules.
  /// Budget in wall seconds when `candidates` is 0: the whole search's, planned by planBudget
  /// (Budget.h) from its setup and the original's whole timing.
  double seconds = 0;
  uint64_t seed = 0; ///< Of the candidates' draws (candidateRng) and of the gate.
  Strategy strategy = Strategy::Random;
  nas::Policy policy = nas::kDefaultPolicy;
  nas::GateParams gate;
  /// With the synflow policy and a value > 0: the tolerance in ln synflow per Conv the
  /// candidate's steps name, so a candidate that transforms n Convs may lose up to n times this
  /// (gateParamsFor); 0: gate.tolerances' whole-network value. Synflow's logarithm is a sum over
  /// the layers, so a whole-network tolerance means less the deeper the network. 0.75 separates
  /// 14 of the 15 variants of the capacity validation (docs/search.md, "The gate's tolerance").
  double synflowPerLayer = kSynflowPerLayer;
  nas::CapacityOptions capacity;
  MeasureOptions measure;
  int finalists = 3; ///< Best candidates by estimate that are compiled and timed whole.
  /// When not empty, every measurement runs in a child process of this executable (nasc, its
  /// measure-workload verb: measureInChild), killed after `childTimeoutSeconds`, so generated
  /// code that crashes or hangs fails its candidate and the search goes on; empty: in process.
  std::string childExecutable;
  double childTimeoutSeconds = 300;
  bool resume = false; ///< Continue the search of the same identity (searchIdentity) in the db.
  /// The neural transformations (registry names) whose steps the search draws; empty: all.
  std::vector<std::string> transforms;
};

/// One candidate and what became of it: status "measured" (legal, every layer measured),
/// "refused" (no step applied, or the gate refused), "wrong" (a layer computed a wrong output) or
/// "failed" (compiling or running a layer failed).
struct CandidateResult {
  int64_t index = 0;
  std::vector<nas::NeuralStep> steps;
  std::string status;
  std::string reason;  ///< Why refused, wrong or failed; "" when measured.
  double estimate = 0; ///< Seconds: the original's non-Conv time plus its layers' (measured).
  double flops = 0;
  int64_t params = 0;
  std::map<std::string, double> proxies; ///< The gate's measured proxies (synflow: ln).
  std::string capacity;                  ///< The gate's record (nas::capacityJson), or "".
};

/// A network compiled with the schedule choices its layers measured fastest and timed whole.
struct Timed {
  int64_t index = 0; ///< Its CandidateResult::index; -1 for the original.
  std::vector<nas::NeuralStep> steps;
  /// The schedule choices of each Conv node (after the steps) other than the default trace's.
  std::map<std::string, compiler::TraceChoices> choices;
  double seconds = 0;       ///< Median of one run; 0 when it failed.
  double estimate = 0;      ///< Its estimate from the layers, default trace (CandidateResult's).
  double tunedEstimate = 0; ///< Its estimate from the layers with `choices`.
  std::string reason;       ///< Why compiling, checking or running it failed; "" otherwise.
};

/// What a search found. `best` is the fastest finalist timed whole, or none when no candidate
/// was legal or none ran faster than the original.
struct SearchResult {
  std::string identity;
  /// The original, default schedule, timed whole: at the start (for the estimates), and again
  /// after the finalists, as they are timed (at least 20 runs and 1 s), when there are any.
  double originalSeconds = 0;
  /// The original with the same schedule search as the finalists' layers (each Conv workload's
  /// fastest choices), timed whole with them; its seconds 0 when there are no finalists.
  Timed tunedOriginal;
  /// The part of every estimate outside the Convs: the original's first whole time minus its
  /// Conv workloads, at least 0.
  double otherSeconds = 0;
  double originalFlops = 0;
  int64_t originalParams = 0;
  std::map<std::string, double> originalProxies;
  std::vector<CandidateResult> candidates;
  std::vector<Timed> finalists;
  /// Index in `finalists`: the fastest that beat both the original and the tuned original.
  std::optional<size_t> best;
  int64_t layersMeasured = 0; ///< Layer shapes measured by this run (not found in the db).
  double wallSeconds = 0;
  /// Wall seconds by phase: "setup" (loading, the gate's original, the original timed),
  /// "gate" (judging candidates), "layers" (measuring Conv workloads while exploring),
  /// "schedules" (the schedule choices of the original's and the finalists' workloads),
  /// "finalists" (timing them and the original whole).
  std::map<std::string, double> phaseSeconds;
};

/// Progress after each candidate and at the start of each later phase, for a progress line.
struct Progress {
  int64_t done = 0, budget = 0;          ///< Candidates; budget 0: a time budget.
  double elapsed = 0, budgetSeconds = 0; ///< Wall seconds since the search started.
  /// The original's estimate (its Conv workloads as the candidates' are measured, plus the
  /// time outside them) over the best estimate so far; 0: none legal yet.
  double bestSpeedup = 0;
  int64_t refused = 0;
  /// "exploring", then "schedules" (the finalists' and the original's schedule choices) and
  /// "finalists" (timing them whole).
  std::string phase = "exploring";
};

/// The gate's thresholds for a candidate whose steps name `touchedConvs` distinct Convs:
/// options.gate, its synflow tolerance options.synflowPerLayer × touchedConvs when that is > 0 and
/// the policy is synflow.
nas::GateParams gateParamsFor(const SearchOptions &options, size_t touchedConvs);

/// The identity of a search: the model file's CRC-32, its seed, strategy, policy, per-layer
/// tolerance, transformations (when not all), "no-expansion-rule" when the gate's rule is off,
/// "ln-synflow" (the records' synflow proxies are natural logs; a search recorded before, with
/// linear synflow, is never resumed into one whose values are logs), threads and target, so that
/// --resume finds its records and no other's.
std::string searchIdentity(const std::string &modelPath, const SearchOptions &options);

/// Runs the search on the model file `modelPath` (ONNX or JSON spec) with records in `db`:
/// candidate i (0, 1, ...) is drawn with candidateRng(seed, i) by sampleCandidate (Random) or by
/// proposeCandidate from the candidates before it (Evolution: measured estimates, so it depends
/// on the timings and is deterministic only on resume, which reads them back), judged by the
/// gate (nas::CapacityGate, the original measured once), and estimated from its Conv workloads
/// (convWorkloads; each key measured once per target and version, found in `db` otherwise);
/// every candidate is recorded in `db` before the next starts. `stop` is polled between
/// candidates and before each new schedule choice (a signal handler's flag): the search then
/// ends with the candidates so far, measures no new schedule choice and times what it has. Then
/// each Conv workload of the original and of the `finalists` best estimates gets its schedule
/// choices measured (LayerTimes::tune), the slowest workload first, and each of those networks
/// is compiled with its fastest choices and timed whole, the original also with the default
/// trace. A time budget ends the exploration and the schedule choices at planBudget's times;
/// a candidate budget measures every schedule choice. Throws
/// nasc::Error for an unreadable model and every error of the gate or of measuring the original.
SearchResult runSearch(const std::string &modelPath, const SearchOptions &options, TuningDb &db,
                       const std::function<void(const Progress &)> &progress,
                       const std::function<bool()> &stop);

} // namespace nasc::search
