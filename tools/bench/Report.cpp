#include "tools/bench/Report.h"

#include "ir/Error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

namespace nasc::bench {

namespace {

/// Bound of issue #11: time(variant) / time(original) <= 1.5 x FLOP(variant) / FLOP(original).
constexpr double kVariantBound = 1.5;

bool timed(const LayerResult &r) { return r.error.empty() && r.correct; }

double ratio(const LayerResult &r) { return r.nascSeconds / r.onednnSeconds; }

double bestRatio(const LayerResult &r) { return r.nascBestSeconds / r.onednnBestSeconds; }

double geomean(const std::vector<double> &values) {
  double logSum = 0;
  for (double v : values)
    logSum += std::log(v);
  return std::exp(logSum / static_cast<double>(values.size()));
}

double gflops(double flops, double seconds) { return flops * 1e-9 / seconds; }

const LayerResult *findResult(const std::vector<LayerResult> &results, const std::string &name) {
  auto it = std::find_if(results.begin(), results.end(),
                         [&](const LayerResult &r) { return r.layer.name == name; });
  return it == results.end() || !timed(*it) ? nullptr : &*it;
}

/// Shares of a variant against its original: FLOP and each library's time (medians; nascBest:
/// minima).
struct VariantShares {
  double flops, nasc, onednn, nascBest;
};

VariantShares variantShares(const LayerResult &variant, const LayerResult &original) {
  return {variant.layer.shape.flops() / original.layer.shape.flops(),
          variant.nascSeconds / original.nascSeconds,
          variant.onednnSeconds / original.onednnSeconds,
          variant.nascBestSeconds / original.nascBestSeconds};
}

void printGroupMeans(const std::vector<LayerResult> &results) {
  std::map<LayerGroup, std::vector<double>> ratios, bestRatios;
  for (const LayerResult &r : results)
    if (timed(r)) {
      ratios[r.layer.group].push_back(ratio(r));
      bestRatios[r.layer.group].push_back(bestRatio(r));
    }
  std::printf("\n| group | layers | geomean nasc/oneDNN | worst nasc/oneDNN | geomean (minima) | "
              "worst (minima) |\n|---|---:|---:|---:|---:|---:|\n");
  for (const auto &[group, values] : ratios) {
    const std::vector<double> &best = bestRatios[group];
    std::printf("| %s | %zu | %.2f | %.2f | %.2f | %.2f |\n", groupName(group).c_str(),
                values.size(), geomean(values), *std::max_element(values.begin(), values.end()),
                geomean(best), *std::max_element(best.begin(), best.end()));
  }
}

void printVariantShares(const std::vector<LayerResult> &results) {
  bool headed = false;
  for (const LayerResult &r : results) {
    const LayerResult *original = findResult(results, r.layer.original);
    if (r.layer.original.empty() || !timed(r) || !original)
      continue;
    if (!headed)
      std::printf("\n| variant | original | FLOP share | nasc time share | nasc share / FLOP share "
                  "| oneDNN time share | nasc time share (minima) | within %.1fx |\n"
                  "|---|---|---:|---:|---:|---:|---:|---|\n",
                  kVariantBound);
    headed = true;
    VariantShares s = variantShares(r, *original);
    std::printf("| %s | %s | %.3f | %.3f | %.2f | %.3f | %.3f | %s |\n", r.layer.name.c_str(),
                r.layer.original.c_str(), s.flops, s.nasc, s.nasc / s.flops, s.onednn, s.nascBest,
                s.nasc <= kVariantBound * s.flops ? "yes" : "**no**");
  }
}

nlohmann::json layerJson(const LayerResult &r, const std::vector<LayerResult> &results,
                         const RunInfo &info) {
  const LayerShape &s = r.layer.shape;
  nlohmann::json j = {{"name", r.layer.name},
                      {"group", groupName(r.layer.group)},
                      {"shape", s.describe()},
                      {"C", s.C},
                      {"H", s.H},
                      {"W", s.W},
                      {"K", s.K},
                      {"kernel", s.kernel},
                      {"stride", s.stride},
                      {"pad", s.pad},
                      {"group_count", s.group},
                      {"gemm", s.gemm},
                      {"flop", s.flops()}};
  if (!r.error.empty()) {
    j["error"] = r.error;
    return j;
  }
  j.update(
      {{"nasc_ms", r.nascSeconds * 1e3},
       {"onednn_ms", r.onednnSeconds * 1e3},
       {"nasc_min_ms", r.nascBestSeconds * 1e3},
       {"onednn_min_ms", r.onednnBestSeconds * 1e3},
       {"nasc_over_onednn", ratio(r)},
       {"nasc_gflops", gflops(s.flops(), r.nascSeconds)},
       {"onednn_gflops", gflops(s.flops(), r.onednnSeconds)},
       {"nasc_percent_of_peak",
        info.peakGflops() > 0 ? 100 * gflops(s.flops(), r.nascSeconds) / info.peakGflops() : 0},
       {"runs", r.runs},
       {"relative_error", r.relativeError},
       {"correct", r.correct},
       {"nasc_compile_s", r.compileSeconds},
       {"onednn_implementation", r.onednnImplementation}});
  if (const LayerResult *original = findResult(results, r.layer.original); original && timed(r)) {
    VariantShares shares = variantShares(r, *original);
    j["variant"] = {{"original", r.layer.original},
                    {"flop_share", shares.flops},
                    {"nasc_time_share", shares.nasc},
                    {"onednn_time_share", shares.onednn},
                    {"nasc_min_time_share", shares.nascBest}};
  }
  return j;
}

nlohmann::json peakJson(const FmaPeak &peak) {
  return {{"isa", peak.isa}, {"gflops", peak.gflops}};
}

} // namespace

double RunInfo::peakGflops() const {
  return std::max(peakBefore.gflops, peakAfter.gflops) * threads;
}

void printHeader(const RunInfo &info) {
  std::printf("layer_bench %s: nasc (JIT, default schedule) against oneDNN %s, batch 1, "
              "%d thread(s)\n",
              info.date.c_str(), info.onednnVersion.c_str(), info.threads);
  std::printf("CPU: %s; LLVM host CPU \"%s\"; nasc's vector unit: %d x f32\n",
              info.cpuModel.c_str(), info.llvmCpu.c_str(), info.nascLanes);
  std::printf("fp32 FMA peak, one core (%s): %.1f GFLOP/s\n", info.peakBefore.isa.c_str(),
              info.peakBefore.gflops);
  std::printf("timing: alternating nasc, oneDNN; median (and minimum) of >= %d runs and >= %.2f s "
              "per side; "
              "outputs agree within relative error %.0e\n",
              info.minRuns, info.minSeconds, info.tolerance);
  std::printf("oneDNN's time: %s\n",
              info.onednnNchw   ? "its reorders from the NCHW input and to the NCHW output, and "
                                  "the primitive (--onednn-nchw)"
              : info.nascKernel ? "the primitive alone, on data reordered once, the second "
                                  "of two calls in a row (warm as nasc's kernel)"
                                : "the primitive alone, on data reordered once");
  std::printf("nasc's time: %s\n",
              info.nascKernel ? "the layer's kernel alone, as in a network (between identity "
                                "convs of its neighbours' size, per-kernel profile; "
                                "--nasc-kernel); the Gemm whole"
                              : "the layer from the NCHW input to the NCHW output");
  std::printf("load average (1, 5, 15 min) at start: %s\n\n", info.loadBefore.c_str());
}

void printTableHeading() {
  std::printf("| layer | shape | MFLOP | nasc ms | oneDNN ms | nasc/oneDNN | (minima) | nasc "
              "GFLOP/s | oneDNN GFLOP/s | nasc %% of peak | rel. error | nasc compile s | oneDNN "
              "impl |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
}

void printLayerRow(const LayerResult &r, const RunInfo &info) {
  const double flops = r.layer.shape.flops();
  if (!r.error.empty()) {
    std::printf("| %s | %s | %.1f | error: %s |\n", r.layer.name.c_str(),
                r.layer.shape.describe().c_str(), flops * 1e-6, r.error.c_str());
  } else {
    const double nascGflops = gflops(flops, r.nascSeconds);
    std::printf("| %s | %s | %.1f | %.3f | %.3f | %.2f | %.2f | %.1f | %.1f | %.1f | %.1e%s | %.2f "
                "| %s |\n",
                r.layer.name.c_str(), r.layer.shape.describe().c_str(), flops * 1e-6,
                r.nascSeconds * 1e3, r.onednnSeconds * 1e3, ratio(r),
                r.nascBestSeconds / r.onednnBestSeconds, nascGflops, gflops(flops, r.onednnSeconds),
                info.peakGflops() > 0 ? 100 * nascGflops / info.peakGflops() : 0.0, r.relativeError,
                r.correct ? "" : " **MISMATCH**", r.compileSeconds, r.onednnImplementation.c_str());
  }
  std::fflush(stdout);
}

void printSummary(const std::vector<LayerResult> &results, const RunInfo &info) {
  printGroupMeans(results);
  printVariantShares(results);
  std::printf("\nfp32 FMA peak, one core (%s), after the layers: %.1f GFLOP/s; load average at "
              "end: %s\n",
              info.peakAfter.isa.c_str(), info.peakAfter.gflops, info.loadAfter.c_str());
}

void writeJson(const std::string &path, const std::vector<LayerResult> &results,
               const RunInfo &info) {
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerResult &r : results)
    layers.push_back(layerJson(r, results, info));
  nlohmann::json j = {{"date", info.date},
                      {"cpu", info.cpuModel},
                      {"llvm_cpu", info.llvmCpu},
                      {"nasc_vector_lanes", info.nascLanes},
                      {"onednn_version", info.onednnVersion},
                      {"threads", info.threads},
                      {"onednn_nchw_reorders_timed", info.onednnNchw},
                      {"nasc_kernel_only", info.nascKernel},
                      {"min_runs", info.minRuns},
                      {"min_seconds", info.minSeconds},
                      {"tolerance", info.tolerance},
                      {"peak_before", peakJson(info.peakBefore)},
                      {"peak_after", peakJson(info.peakAfter)},
                      {"peak_gflops_used", info.peakGflops()},
                      {"load_before", info.loadBefore},
                      {"load_after", info.loadAfter},
                      {"layers", layers}};
  std::ofstream out(path);
  out << j.dump(2) << "\n";
  if (!out)
    throw Error("--json " + path + ": cannot write the file");
}

} // namespace nasc::bench
