#include "compiler/search/Measure.h"

#include "compiler/CompiledModel.h"
#include "compiler/Pipeline.h"
#include "compiler/search/ChildProcess.h"
#include "compiler/search/TuningDb.h"
#include "ir/export/OnnxExporter.h"
#include "runtime/reference/Reference.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <sstream>

namespace nasc::search {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// One seeded uniform(−1, 1) tensor per graph input, by name.
std::map<std::string, ir::Tensor> randomInputs(const ir::Graph &graph) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> values(-1.0f, 1.0f);
  std::map<std::string, ir::Tensor> inputs;
  for (const std::string &name : graph.inputs) {
    ir::Tensor tensor = ir::Tensor::zeros(graph.shapeOf(name));
    for (float &v : tensor.f)
      v = values(rng);
    inputs.emplace(name, std::move(tensor));
  }
  return inputs;
}

/// max |a − b| / max |b| over `outputs` (reference `expected`, nasc's `actual` in graph order).
double relativeError(const ir::Graph &graph, const std::map<std::string, ir::Tensor> &expected,
                     const std::vector<ir::Tensor> &actual) {
  double difference = 0, scale = 1e-30;
  for (size_t o = 0; o < graph.outputs.size(); ++o) {
    const std::vector<float> &want = expected.at(graph.outputs[o]).f, &got = actual.at(o).f;
    for (size_t i = 0; i < want.size(); ++i) {
      difference = std::max(difference, std::fabs(double(got[i]) - double(want[i])));
      scale = std::max(scale, std::fabs(double(want[i])));
    }
  }
  return difference / scale;
}

/// Writes a byte of every cache line of `buffer`, evicting what the caches held.
void evictCaches(std::vector<char> &buffer) {
  for (size_t i = 0; i < buffer.size(); i += 64)
    ++buffer[i];
  asm volatile("" : : "r"(buffer.data()) : "memory"); // the writes are not dead
}

/// Reads every element of `inputs`, so that they are cached again.
void cacheInputs(const std::vector<ir::Tensor> &inputs) {
  float sum = 0;
  for (const ir::Tensor &t : inputs)
    for (float v : t.f)
      sum += v;
  asm volatile("" : : "r"(sum));
}

/// Median seconds of one run of `model` on `inputs`, after a warm-up run; each run after
/// options.flushBytes evicted (evictCaches, cacheInputs) when that is > 0.
double timeRuns(compiler::CompiledModel &model, const std::vector<ir::Tensor> &inputs,
                const MeasureOptions &options) {
  std::vector<char> flush(static_cast<size_t>(std::max<int64_t>(options.flushBytes, 0)));
  const ir::Program &program = model.program();
  std::vector<ir::Tensor> outputs;
  for (int id : program.outputs)
    outputs.push_back(ir::Tensor::zeros(program.buffers[static_cast<size_t>(id)].shape));
  std::vector<const float *> in;
  std::vector<float *> out;
  for (const ir::Tensor &t : inputs)
    in.push_back(t.f.data());
  for (ir::Tensor &t : outputs)
    out.push_back(t.f.data());
  model.runRaw(in.data(), out.data());
  std::vector<double> runs;
  const Clock::time_point start = Clock::now();
  while (static_cast<int>(runs.size()) < options.repeat || since(start) < options.minSeconds) {
    if (!flush.empty()) {
      evictCaches(flush);
      cacheInputs(inputs);
    }
    const Clock::time_point run = Clock::now();
    model.runRaw(in.data(), out.data());
    runs.push_back(since(run));
  }
  std::nth_element(runs.begin(), runs.begin() + runs.size() / 2, runs.end());
  return runs[runs.size() / 2];
}

/// A directory made for one child's files, removed with everything in it.
class TemporaryDirectory {
public:
  TemporaryDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "nasc-measure-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      throw Error("cannot create a temporary directory under " +
                  std::filesystem::temp_directory_path().string());
    path_ = pattern;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string &name) const { return (path_ / name).string(); }

private:
  std::filesystem::path path_;
};

/// The last line of `output` that is a JSON object, or "".
std::string lastJsonLine(const std::string &output) {
  std::string found, line;
  std::istringstream lines(output);
  while (std::getline(lines, line))
    if (!line.empty() && line.front() == '{')
      found = line;
  return found;
}

} // namespace

std::string measurementLine(const Measurement &m) {
  return nlohmann::json{{"seconds", m.seconds},
                        {"relative_error", m.relativeError},
                        {"compile_seconds", m.compileSeconds}}
      .dump();
}

std::string failureLine(const Error &error) {
  return nlohmann::json{{"error", error.what()},
                        {"wrong", dynamic_cast<const WrongOutput *>(&error) != nullptr}}
      .dump();
}

std::string cpuArgument(const codegen::Target &target) {
  return target.native && targetKey(target) == targetKey(codegen::resolveTarget("native", "host"))
             ? "host"
             : target.cpu;
}

Measurement measureInChild(const ir::Graph &graph, const compiler::ModelSchedule &schedule,
                           const MeasureOptions &options, const std::string &executable,
                           double timeoutSeconds) {
  const TemporaryDirectory dir;
  ir::exportOnnx(graph, dir.file("graph.onnx"));
  std::ofstream(dir.file("schedule.json")) << compiler::scheduleToJson(schedule);
  const ChildResult child = runChild(
      {executable, "measure-workload", dir.file("graph.onnx"), "--schedule",
       dir.file("schedule.json"), "--threads", std::to_string(options.threads), "--repeat",
       std::to_string(options.repeat), "--min-seconds", std::to_string(options.minSeconds),
       "--flush-bytes", std::to_string(options.flushBytes), "--cpu", cpuArgument(options.target)},
      timeoutSeconds);
  const std::string line = lastJsonLine(child.output);
  if (child.end != ChildResult::End::Exited || line.empty())
    throw Error(graph.source + ": measuring it in a child process ended by " +
                child.describe(timeoutSeconds) + (line.empty() ? "" : ": " + line));
  const nlohmann::json answer = nlohmann::json::parse(line);
  if (answer.contains("error")) {
    if (answer.at("wrong").get<bool>())
      throw WrongOutput(answer.at("error").get<std::string>());
    throw Error(answer.at("error").get<std::string>());
  }
  return {answer.at("seconds"), answer.at("relative_error"), answer.at("compile_seconds")};
}

Measurement measure(const ir::Graph &graph, const compiler::ModelSchedule &schedule,
                    const MeasureOptions &options) {
  const Clock::time_point start = Clock::now();
  compiler::CompileOptions compile;
  compile.target = options.target;
  compile.threads = options.threads;
  std::unique_ptr<compiler::CompiledModel> model = compiler::CompiledModel::compile(
      compiler::lowerToPolyhedral(graph, schedule, options.target.vector), compile);
  Measurement measurement;
  measurement.compileSeconds = since(start);
  const ir::Graph &transformed = model->graph();
  const std::map<std::string, ir::Tensor> inputs = randomInputs(transformed);
  std::vector<ir::Tensor> ordered;
  for (const std::string &name : transformed.inputs)
    ordered.push_back(inputs.at(name));
  measurement.relativeError =
      relativeError(transformed, runtime::runReference(transformed, inputs), model->run(ordered));
  if (!(measurement.relativeError <= 1e-4))
    throw WrongOutput(graph.source +
                      ": the compiled output differs from the reference executor's "
                      "by " +
                      std::to_string(measurement.relativeError) + " (relative)");
  measurement.seconds = timeRuns(*model, ordered, options);
  return measurement;
}

} // namespace nasc::search
