// Measuring a candidate for real (docs/search.md, "Measuring"): compiled by nasc for the search's
// target, its output checked against the reference executor, then timed in-process.
#pragma once

#include "codegen/TargetDescription.h"
#include "compiler/transforms/ScheduleTrace.h"
#include "ir/Error.h"
#include "ir/Graph.h"

#include <string>

namespace nasc::search {

/// How to time: `threads` of the parallel loops, at least `repeat` runs and `minSeconds` of
/// them after one warm-up run (caches warm), for `target` (its triple must be this machine's).
struct MeasureOptions {
  codegen::Target target = codegen::resolveTarget();
  int threads = 1;
  int repeat = 10;
  double minSeconds = 0.05;
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

} // namespace nasc::search
