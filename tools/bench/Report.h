// The per-layer benchmark's report: the machine, one row per layer, geometric means per group,
// the variants' time shares against their FLOP shares, and the same as JSON.
#pragma once

#include "tools/bench/FmaPeak.h"
#include "tools/bench/LayerSuite.h"

#include <string>
#include <vector>

namespace nasc::bench {

/// What a run measured on one layer. `error` is non-empty if the layer could not be built by
/// either side (then nothing else is set).
struct LayerResult {
  BenchLayer layer;
  double nascSeconds = 0, onednnSeconds = 0;         ///< Medians per call.
  double nascBestSeconds = 0, onednnBestSeconds = 0; ///< Minima per call.
  double compileSeconds = 0;                         ///< nasc's lowering + JIT compilation, wall.
  int runs = 0;                                      ///< Timed calls of each side.
  double relativeError = 0; ///< max |nasc - oneDNN| / max |oneDNN| on the layer's output.
  bool correct = false;     ///< relativeError <= RunInfo::tolerance.
  std::string onednnImplementation;
  std::string error;
};

/// The machine and settings of a run.
struct RunInfo {
  std::string date, cpuModel, llvmCpu, onednnVersion, loadBefore, loadAfter;
  int nascLanes =
      0; ///< codegen::resolveTarget().vector.lanes: lanes of the target nasc compiles for.
  FmaPeak peakBefore, peakAfter; ///< One core, measured before and after the layers.
  int threads = 1, minRuns = 0;
  double minSeconds = 0, tolerance = 0;
  bool onednnNchw = false; ///< oneDNN timed with its reorders from and to NCHW (--onednn-nchw).
  /// nasc's conv kernel timed alone, between identity convs, by the per-kernel profile
  /// (--nasc-kernel; NascLayer's kernelOnly).
  bool nascKernel = false;

  /// The larger of the two peaks, times `threads`: the 100 % of "% of peak", GFLOP/s.
  double peakGflops() const;
};

/// The lines above the table: date, CPU names, vector ISA, peak, oneDNN version, settings, load.
void printHeader(const RunInfo &info);
/// The markdown heading of the layer table.
void printTableHeading();
/// One markdown row: name, shape, MFLOP, nasc ms, oneDNN ms (medians), nasc/oneDNN of the
/// medians and of the minima, GFLOP/s of both (medians), nasc's % of peak, relative error,
/// nasc's compile seconds and oneDNN's implementation.
void printLayerRow(const LayerResult &result, const RunInfo &info);
/// After the table: the geometric mean and the worst of nasc/oneDNN over the correct layers of
/// each group (of the medians and of the minima), and for each variant whose original was
/// measured: time(variant) / time(original) of both libraries (medians; nasc's also of the
/// minima) against FLOP(variant) / FLOP(original), and whether nasc's median time share is
/// within 1.5x the FLOP share (issue #11's bound).
void printSummary(const std::vector<LayerResult> &results, const RunInfo &info);

/// Writes `info` and `results` as JSON to `path`. Throws nasc::Error if it cannot be written.
void writeJson(const std::string &path, const std::vector<LayerResult> &results,
               const RunInfo &info);

} // namespace nasc::bench
