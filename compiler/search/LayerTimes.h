// The measured time of each Conv workload (docs/search.md, "Measuring"): found in the tuning
// database for this target and nasc version, else measured once and recorded; per workload the
// default trace or another of the schedule choices (ScheduleSpace.h).
#pragma once

#include "compiler/search/ConvWorkload.h"
#include "compiler/search/Search.h"
#include "compiler/search/TuningDb.h"
#include "compiler/transforms/DefaultSchedule.h"

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace nasc::search {

/// The schedule choices of each Conv node of a network, by node name (default ones left out).
using NodeChoices = std::map<std::string, compiler::TraceChoices>;

/// A workload's fastest schedule choices and their time.
struct TunedLayer {
  compiler::TraceChoices choices;
  double seconds = 0;
};

/// The db workload of `workload` with `choices`: its key, then " schedule " and choicesText
/// when a choice is not the default trace's.
std::string workloadRecordKey(const ConvWorkload &workload, const compiler::TraceChoices &choices);

/// `schedule` with a default_trace step of `choices` for each node there: appended to the node's
/// entry when it holds neural steps only, a new entry when there is none; a node whose entry
/// has schedule steps keeps them alone.
compiler::ModelSchedule withChoices(compiler::ModelSchedule schedule, const NodeChoices &choices);

/// For each Conv of `graph` (static shapes, inference-ready or prepared for training): the
/// choices of traceChoiceSpace(target's vector unit) whose record in `db` (this target and
/// nasc version) is the fastest measured of its workload, where that is not the default trace
/// (`nasc compile --db`). Workloads without records get none.
NodeChoices tunedChoices(const ir::Graph &graph, const TuningDb &db, const codegen::Target &target);

/// measure(), in a child process when options.childExecutable says so.
Measurement measureAs(const SearchOptions &options, const ir::Graph &graph,
                      const compiler::ModelSchedule &schedule);

/// The bytes evicted before each timed run of a layer (MeasureOptions::flushBytes): more than the
/// last-level cache of the CPUs seen (32 MB per Zen CCD, up to 105 MB on a Xeon). A layer inside a
/// network whose weights exceed the caches reads them from memory at every inference: CIFAR
/// ResNet-34's stage-4 convs, 9.4 MB of weights each, ran 4x slower inside it than alone with
/// warm caches (docs/search.md).
inline constexpr int64_t kLayerFlushBytes = int64_t{128} << 20;

/// The seconds of Conv workloads with schedule choices on this target and nasc version: found in
/// the db, else measured (measureAs of the workload's graph with a default_trace step, after
/// kLayerFlushBytes evicted before each run) and recorded under search "<search>#layers". A
/// workload that failed fails again without being measured again.
class LayerTimes {
public:
  LayerTimes(TuningDb &db, const std::string &search, const SearchOptions &options);

  /// Seconds of one run of `workload` with `choices`. Throws WrongOutput or nasc::Error as
  /// measure() does.
  double seconds(const ConvWorkload &workload, const compiler::TraceChoices &choices = {});

  /// The fastest of `workload`'s distinct choices (distinctChoices, each measured once, as
  /// seconds() does) in two rounds: those of traceChoiceSpace with the default trace's own
  /// order, then the fastest of them with the other order (a coordinate search: about half the
  /// measurements of the whole space). A choice that fails or computes a wrong output is
  /// skipped (its record says so); after the tune deadline or a stop request (setTuneStop), so
  /// is one not yet measured (in this object or the db). Throws as seconds() does when the default
  /// choice fails.
  TunedLayer tune(const ConvWorkload &workload);

  /// The time after which tune() measures no new choice other than the default (a search's
  /// BudgetPlan::schedulesEnd); none until set.
  void setTuneDeadline(std::chrono::steady_clock::time_point deadline) { tuneDeadline_ = deadline; }

  /// Polled by tune() before each new choice (a search's stop request, e.g. SIGTERM's flag):
  /// once it returns true, tune() measures no new choice other than the default, as after the
  /// tune deadline; none until set.
  void setTuneStop(std::function<bool()> stop) { tuneStop_ = std::move(stop); }

  /// Workloads measured by this object (not found in the db).
  int64_t measured() const { return measured_; }
  /// Wall seconds spent measuring new workloads, failed ones included.
  double spentSeconds() const { return spent_; }

private:
  struct Failure {
    bool wrong;
    std::string reason;
  };

  /// The seconds of `key` measured before (by this object or in the db), none when it was not;
  /// throws as the failure did when it failed.
  std::optional<double> recorded(const std::string &key);

  double measureNew(const ConvWorkload &workload, const compiler::TraceChoices &choices,
                    const std::string &key);

  TuningDb &db_;
  std::string search_, target_;
  SearchOptions options_;
  int64_t next_ = 0, measured_ = 0;
  double spent_ = 0;
  std::chrono::steady_clock::time_point tuneDeadline_ =
      std::chrono::steady_clock::time_point::max();
  std::function<bool()> tuneStop_ = [] { return false; };
  std::map<std::string, double> known_;
  std::map<std::string, Failure> failed_;
};

} // namespace nasc::search
