// layer_bench: nasc against oneDNN on single conv / Gemm layers in one process (issue #11 item
// 4). For each layer of the suite (LayerSuite.h): the same seeded data through nasc's JIT and a
// oneDNN primitive, outputs compared, then both timed alternately; the machine's FMA peak is
// measured in the same run. Exits 1 if a layer fails to build or its outputs disagree.
#include "codegen/TargetDescription.h"
#include "ir/Error.h"
#include "test/support/Compare.h"
#include "tools/bench/FmaPeak.h"
#include "tools/bench/HostCpu.h"
#include "tools/bench/NascLayer.h"
#include "tools/bench/OnednnLayer.h"
#include "tools/bench/Report.h"
#include "tools/bench/Timing.h"

#include <CLI/CLI.hpp>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>

namespace nasc::bench {

namespace {

/// Seed of every layer's input, weights and bias (layerTensors).
constexpr uint64_t kSeed = 11;

struct Settings {
  std::vector<std::string> filter;
  bool list = false, onednnNchw = false, nascKernel = false;
  int repeat = 20, threads = 1;
  double minSeconds = 0.2, peakSeconds = 0.5, tolerance = 1e-4;
  std::string json;
};

void addOptions(CLI::App &app, Settings &s) {
  app.add_option("--filter", s.filter,
                 "Run only the layers whose name contains one of these substrings (comma-"
                 "separated); a variant brings its original along")
      ->delimiter(',');
  app.add_flag("--list", s.list, "Print the suite (name, group, shape, MFLOP) and exit");
  app.add_option("--repeat", s.repeat, "Minimum timed runs of each side per layer")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--min-time", s.minSeconds, "Minimum timed seconds of each side per layer")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--threads", s.threads, "Threads of nasc's parallel loops and of oneDNN (OpenMP)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--peak-time", s.peakSeconds, "Seconds of each FMA peak measurement")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--tolerance", s.tolerance,
                 "Largest relative error max|nasc - oneDNN| / max|oneDNN| that passes")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_flag("--onednn-nchw", s.onednnNchw,
               "Time oneDNN with its reorders from the NCHW input and to the NCHW output, as "
               "nasc's layer, which takes and gives NCHW, is timed (default: the primitive "
               "alone, on data reordered once)");
  app.add_flag(
         "--nasc-kernel", s.nascKernel,
         "Time nasc's conv kernel alone, as in a network: the layer compiled between two "
         "identity convs of the size of its neighbours in its network (3x3 in ResNet "
         "basic blocks, else 1x1), so that it reads and writes the layout kept between kernels "
         "(nChw[x]c for a blocked conv) without the copies from and to NCHW of a lone "
         "layer, timed by the per-kernel profile (default: the layer from NCHW to NCHW); "
         "the counterpart of oneDNN's primitive alone, which is then timed on its second "
         "call in a row, its data in cache as nasc's kernel's input is")
      ->excludes("--onednn-nchw");
  app.add_option("--json", s.json, "Also write the results as JSON to this file");
}

void listSuite(const std::vector<BenchLayer> &layers) {
  for (const BenchLayer &l : layers)
    std::printf("%-18s %-26s %-32s %9.1f MFLOP%s\n", l.name.c_str(), groupName(l.group).c_str(),
                l.shape.describe().c_str(), l.shape.flops() * 1e-6,
                l.original.empty() ? "" : ("  (variant of " + l.original + ")").c_str());
}

std::string utcNow() {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return text;
}

std::string onednnVersion() {
  const dnnl_version_t *v = dnnl::version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Builds, checks and times one layer; a failure to build is recorded in LayerResult::error.
LayerResult measureLayer(const BenchLayer &layer, const Settings &s, const dnnl::engine &engine) {
  LayerResult r;
  r.layer = layer;
  try {
    const LayerTensors tensors = layerTensors(layer.shape, kSeed);
    auto start = std::chrono::steady_clock::now();
    NascLayer nasc(layer, tensors, s.threads, s.nascKernel && !layer.shape.gemm);
    r.compileSeconds = secondsSince(start);
    OnednnLayer onednn(layer.shape, tensors, engine, s.onednnNchw);
    r.onednnImplementation = onednn.implementation();
    nasc.run();
    onednn.run();
    r.relativeError = test::relativeError(nasc.output(), onednn.output());
    r.correct = r.relativeError <= s.tolerance;
    auto runNasc = [&] { return nasc.run(); };
    auto runOnednn = [&] {
      if (s.nascKernel)
        onednn.run();
      return secondsOf([&] { onednn.run(); });
    };
    timeAlternating(runNasc, runOnednn, 2, 0);
    AlternatingTiming t = timeAlternating(runNasc, runOnednn, s.repeat, s.minSeconds);
    r.nascSeconds = t.first;
    r.onednnSeconds = t.second;
    r.nascBestSeconds = t.firstMin;
    r.onednnBestSeconds = t.secondMin;
    r.runs = t.runs;
  } catch (const nasc::Error &e) {
    r.error = std::string("nasc: ") + e.what();
  } catch (const dnnl::error &e) {
    r.error = std::string("oneDNN: ") + e.what();
  }
  return r;
}

/// Runs the selected layers and prints the report; returns the exit status.
int runBench(const Settings &s) {
  const std::vector<BenchLayer> layers = selectLayers(layerSuite(), s.filter);
  if (s.list) {
    listSuite(layers);
    return 0;
  }
  omp_set_num_threads(s.threads);
  RunInfo info;
  info.date = utcNow();
  info.cpuModel = cpuModelName();
  info.llvmCpu = llvmHostCpuName();
  info.onednnVersion = onednnVersion();
  info.loadBefore = loadAverage();
  info.nascLanes = codegen::resolveTarget().vector.lanes;
  info.threads = s.threads;
  info.minRuns = s.repeat;
  info.minSeconds = s.minSeconds;
  info.tolerance = s.tolerance;
  info.onednnNchw = s.onednnNchw;
  info.nascKernel = s.nascKernel;
  info.peakBefore = measureFmaPeak(s.peakSeconds);
  printHeader(info);
  printTableHeading();
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  std::vector<LayerResult> results;
  bool allPassed = true;
  for (const BenchLayer &layer : layers) {
    results.push_back(measureLayer(layer, s, engine));
    printLayerRow(results.back(), info);
    allPassed = allPassed && results.back().error.empty() && results.back().correct;
  }
  info.peakAfter = measureFmaPeak(s.peakSeconds);
  info.loadAfter = loadAverage();
  printSummary(results, info);
  if (!s.json.empty())
    writeJson(s.json, results, info);
  return allPassed ? 0 : 1;
}

} // namespace

} // namespace nasc::bench

int main(int argc, char **argv) {
  CLI::App app{"layer_bench: nasc against oneDNN (forward inference, direct convolution, "
               "format_tag::any) on single conv and Gemm layers at batch 1, same process, "
               "alternating, median of many runs, with the machine's fp32 FMA peak"};
  nasc::bench::Settings settings;
  nasc::bench::addOptions(app, settings);
  try {
    app.parse(argc, argv);
    return nasc::bench::runBench(settings);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  } catch (const nasc::Error &e) {
    std::cerr << "layer_bench: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception &e) {
    std::cerr << "layer_bench: internal error: " << e.what() << "\n";
    return 2;
  }
}
