#include "compiler/CompiledModel.h"
#include "runtime/jit/KernelProfile.h"
#include "tools/nasc/Commands.h"
#include "tools/nasc/ModelArgs.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>

namespace nasc::cli {

namespace {

struct BenchArgs : ModelArgs {
  int repeat = 20;
  int threads = 1;
};

/// Median latency of the whole run and of each kernel call, in seconds.
struct Timings {
  double total = 0;
  std::vector<double> perCall;
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

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

Timings measure(compiler::CompiledModel &model, const std::vector<ir::Tensor> &inputs, int repeat) {
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
  std::vector<double> totals;
  std::vector<std::vector<double>> calls(program.calls.size());
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    runtime::KernelProfile profile(program.calls.size());
    model.runRaw(in.data(), out.data());
    totals.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::vector<double> seconds = profile.seconds();
    for (size_t c = 0; c < seconds.size(); ++c)
      calls[c].push_back(seconds[c]);
  }
  Timings t{median(totals), {}};
  for (const auto &samples : calls)
    t.perCall.push_back(median(samples));
  return t;
}

void printBreakdown(const ir::Program &program, const Timings &timings) {
  std::printf("%-28s %-44s %10s %10s %9s %7s\n", "kernel", "nodes", "MFLOP", "ms", "GFLOP/s",
              "time");
  for (size_t c = 0; c < program.calls.size(); ++c) {
    const ir::KernelCall &call = program.calls[c];
    std::string nodes;
    for (const auto &n : call.nodes)
      nodes += (nodes.empty() ? "" : "+") + n;
    double flops = call.kernel.flops(), seconds = timings.perCall[c];
    std::printf("%-28s %-44s %10.2f %10.3f %9.2f %6.1f%%\n", call.kernel.name.c_str(),
                nodes.c_str(), flops * 1e-6, seconds * 1e3,
                seconds > 0 ? flops * 1e-9 / seconds : 0.0, 100.0 * seconds / timings.total);
  }
}

void bench(const BenchArgs &args) {
  compiler::CompileOptions options;
  options.target = args.target();
  options.jobs = args.jobs;
  options.threads = args.threads;
  options.profile = true;
  codegen::requireRunnableHere(options.target);
  auto model = compiler::CompiledModel::compile(lowerModel(args, options.target), options);
  Timings timings = measure(*model, randomInputs(model->program()), args.repeat);
  double flops = model->program().flops();
  printBreakdown(model->program(), timings);
  std::printf(
      "median latency: %.3f ms over %d runs, %.3f GFLOP per run, %.2f GFLOP/s, %d thread(s)\n",
      timings.total * 1e3, args.repeat, flops * 1e-9, flops * 1e-9 / timings.total, args.threads);
}

} // namespace

void addBenchCommand(CLI::App &app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App *cmd = app.add_subcommand(
      "bench", "JIT-compile MODEL and time it on random inputs: median latency, GFLOP/s, and the "
               "median time of each kernel (the graph nodes it implements)");
  addModelOptions(*cmd, *args);
  cmd->add_option("--repeat", args->repeat, "Timed runs (after one warm-up run)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "Threads of the parallel loops")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  addTargetOptions(*cmd, *args, false);
  cmd->callback([args] { bench(*args); });
}

} // namespace nasc::cli
