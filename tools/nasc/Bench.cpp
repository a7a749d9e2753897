#include "compiler/CompiledModel.h"
#include "ir/import/ModelLoader.h"
#include "tools/nasc/Commands.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>

namespace nasc::cli {

namespace {

struct BenchArgs {
  std::string model;
  int repeat = 20;
  int threads = 1;
};

std::vector<ir::Tensor> randomInputs(const ir::Program &program) {
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<ir::Tensor> inputs;
  for (int id : program.inputs) {
    inputs.push_back(ir::Tensor::zeros(program.buffers[static_cast<size_t>(id)].shape));
    for (float &v : inputs.back().f)
      v = uniform(rng);
  }
  return inputs;
}

double medianSeconds(compiler::CompiledModel &model, const std::vector<ir::Tensor> &inputs, int repeat) {
  const ir::Program &program = model.program();
  std::vector<ir::Tensor> outputs;
  std::vector<const float *> in;
  std::vector<float *> out;
  for (const auto &t : inputs)
    in.push_back(t.f.data());
  for (int id : program.outputs)
    outputs.push_back(ir::Tensor::zeros(program.buffers[static_cast<size_t>(id)].shape));
  for (auto &t : outputs)
    out.push_back(t.f.data());
  model.runRaw(in.data(), out.data());
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    model.runRaw(in.data(), out.data());
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void printKernelTable(const ir::Program &program) {
  std::printf("%-32s %-40s %12s %7s\n", "kernel", "nodes", "MFLOP", "share");
  double total = program.flops();
  for (const auto &call : program.calls) {
    std::string nodes;
    for (const auto &n : call.nodes)
      nodes += (nodes.empty() ? "" : "+") + n;
    double f = call.kernel.flops();
    std::printf("%-32s %-40s %12.2f %6.1f%%\n", call.kernel.name.c_str(), nodes.c_str(), f * 1e-6,
                total > 0 ? 100.0 * f / total : 0.0);
  }
}

void bench(const BenchArgs &args) {
  auto model = compiler::CompiledModel::compile(ir::loadModel(args.model));
  double seconds = medianSeconds(*model, randomInputs(model->program()), args.repeat);
  double flops = model->program().flops();
  printKernelTable(model->program());
  std::printf("median latency: %.3f ms over %d runs, %.3f GFLOP per run, %.2f GFLOP/s, %d thread(s)\n",
              seconds * 1e3, args.repeat, flops * 1e-9, flops * 1e-9 / seconds, args.threads);
}

} // namespace

void addBenchCommand(CLI::App &app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App *cmd = app.add_subcommand(
      "bench", "JIT-compile MODEL and time it on random inputs: median latency, GFLOP/s, "
               "per-kernel FLOP breakdown");
  cmd->add_option("MODEL", args->model, "Model: .onnx or .json")->required()->check(CLI::ExistingFile);
  cmd->add_option("--repeat", args->repeat, "Timed runs (after one warm-up run)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "Threads")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->callback([args] { bench(*args); });
}

} // namespace nasc::cli
