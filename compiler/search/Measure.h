// Measuring a candidate for real (docs/search.md, "Measuring"): compiled by nasc for the search's
// target, its output checked against the reference executor, then timed in-process.
#pragma once

#include "codegen/TargetDescription.h"
#include "compiler/transforms/ScheduleTrace.h"
#include "ir/Error.h"
#include "ir/Graph.h"

#include <cstdint>
#include <string>

namespace nasc::search {

/// How to time: `threads` of the parallel loops, at least `repeat` runs and `minSeconds` of
/// them after one warm-up run (caches warm), for `target` (its triple must be this machine's).
struct MeasureOptions {
  codegen::Target target = codegen::resolveTarget();
  int threads = 1;
  int repeat = 10;
  double minSeconds = 0.05;
  /// Bytes written elsewhere before each timed run (not timed), the inputs then read again: the
  /// run finds its weights in memory, not in the caches, as a layer of a network larger than the
  /// caches does; 0: every run after the previous one, caches warm.
  int64_t flushBytes = 0;
};

/// A compiled graph whose output differs from the reference executor's. `what()` names the graph
/// and the relative error.
class WrongOutput : public Error {
public:
  explicit WrongOutput(const std::string &message) : Error(message) {}
};

/// What measure() found.
struct Measurement {
  double seconds = 0;       ///< Median wall time of one run.
  double relativeError = 0; ///< max |nasc − reference| / max |reference| over the outputs.
  double compileSeconds = 0;
};

/// Lowers `graph` (inference-ready, ir::prepareForInference; every graph input float32) with
/// `schedule` (its neural steps applied first, compiler::lowerToPolyhedral), compiles it in
/// process (JIT), runs it on seeded uniform(−1, 1) inputs and compares every output with
/// runtime::runReference of the graph after the neural steps; then times it (MeasureOptions).
/// Throws WrongOutput when the relative error exceeds 1e-4, and every error of compiling.
Measurement measure(const ir::Graph &graph, const compiler::ModelSchedule &schedule,
                    const MeasureOptions &options);

/// measure() in a child process, so that generated code that crashes or hangs ends the child,
/// not the caller: `graph` (exported as ONNX) and `schedule` are written to a temporary
/// directory, and `executable measure-workload GRAPH.onnx --schedule S.json --threads T --repeat
/// R --min-seconds M --cpu CPU` (nasc's internal verb) prints its measurementLine; it is killed
/// after `timeoutSeconds`. Throws WrongOutput when the child found one, and nasc::Error naming
/// the crash (its signal), the timeout or the child's error otherwise.
Measurement measureInChild(const ir::Graph &graph, const compiler::ModelSchedule &schedule,
                           const MeasureOptions &options, const std::string &executable,
                           double timeoutSeconds);

/// The child's answer: one JSON line {"seconds", "relative_error", "compile_seconds"}.
std::string measurementLine(const Measurement &measurement);

/// The child's answer when measuring failed: {"error": what, "wrong": whether a WrongOutput}.
std::string failureLine(const Error &error);

/// The --cpu name that gives a child `target`: "host" when it is this machine's, else its CPU.
std::string cpuArgument(const codegen::Target &target);

} // namespace nasc::search
