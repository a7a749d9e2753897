// gate_bench: the capacity gate on in-memory candidates (issue #12 item 6, #13 item 0): the time to
// measure the original once and the time to judge each candidate against it, with only the
// policy's proxies.
#include "compiler/nas/CapacityGate.h"
#include "compiler/nas/NeuralStep.h"
#include "ir/Error.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <optional>
#include <utility>

namespace {

using namespace nasc;

/// Wall and process CPU seconds (all threads) of `work`.
std::pair<double, double> seconds(const std::function<void()> &work) {
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu = std::clock();
  work();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
          static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC};
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Times the capacity gate: the original measured once, then each candidate (MODEL "
               "with the --apply steps, built in memory) judged --repeat times with only the "
               "proxies --policy reads"};
  std::string model, policyName = nas::policyName(nas::kDefaultPolicy);
  std::vector<std::string> steps;
  int seeds = nas::FisherOptions{}.seeds, threads = nas::FisherOptions{}.threads, repeat = 3;
  app.add_option("MODEL", model, "Model file (.onnx or .json)")->required();
  app.add_option("--apply", steps, "Neural step of the candidate, NODE:transform(args)")
      ->required();
  app.add_option("--policy", policyName, "Gate policy")->capture_default_str();
  app.add_option("--seeds", seeds, "Initialisations per proxy")->capture_default_str();
  app.add_option("--threads", threads, "Seeds measured at the same time")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--repeat", repeat, "Judgements timed")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    const nas::Policy policy = nas::parsePolicy(policyName);
    const ir::Graph original = nas::loadForTraining(model);
    ir::Graph candidate = original;
    for (const std::string &step : steps)
      candidate = nas::applyNeuralStep(candidate, nas::parseNeuralStep(step));
    nas::CapacityOptions options;
    options.fisher.seeds = seeds;
    options.fisher.threads = threads;
    options.training.seeds = seeds;
    std::optional<nas::CapacityGate> gate;
    const auto [setup, setupCpu] = seconds([&] {
      gate.emplace(original, policy, options, nas::GateParams{}, nas::proxiesOf(policy));
    });
    std::printf("original measured once: %.3f s (cpu %.3f s)\n", setup, setupCpu);
    std::vector<double> walls, cpus;
    nas::CapacityReport report;
    for (int k = 0; k < repeat; ++k) {
      const auto [wall, cpu] = seconds([&] { report = gate->judge(candidate); });
      walls.push_back(wall);
      cpus.push_back(cpu);
    }
    std::sort(walls.begin(), walls.end());
    std::sort(cpus.begin(), cpus.end());
    std::printf("judge one candidate: median %.3f s, min %.3f s (cpu median %.3f s) over %d\n",
                walls[walls.size() / 2], walls.front(), cpus[cpus.size() / 2], repeat);
    std::printf("%s: %s: %s\n", policyName.c_str(), report.decision.legal ? "legal" : "refused",
                report.decision.reason.c_str());
  } catch (const Error &e) {
    std::fprintf(stderr, "gate_bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
