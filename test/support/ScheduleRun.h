// Helpers for tests of schedule primitives: a Scop with another schedule, and end-to-end checks
// (a small model lowered to Scops, some kernels given a transformed schedule, JIT-compiled and
// run against the Eigen reference executor).
#pragma once

#include "compiler/CompiledModel.h"
#include "compiler/Pipeline.h"
#include "ir/import/ModelLoader.h"
#include "runtime/reference/Reference.h"
#include "test/support/Compare.h"

#include <isl/cpp.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>

namespace nasc::test {

/// `scop` with `schedule` in place of its own.
inline poly::Scop withSchedule(const poly::Scop &scop, const isl::schedule &schedule) {
  poly::Scop copy = scop;
  copy.schedule = schedule;
  return copy;
}

/// A new schedule for one kernel from its Scop (holding the initial schedule of poly::buildScop)
/// and dependences, or nullopt to keep the kernel's pipeline schedule.
using KernelTransform = std::function<std::optional<isl::schedule>(
    const poly::Scop &, const poly::Dependences &, const ir::Kernel &)>;

/// A small conv net in nasc's JSON model format: x [2, 5, 9, 8] -> Conv (6 output channels,
/// 3×3 window, padding 1, bias) -> Relu -> y [2, 6, 9, 8]. Its conv kernel has a statement of
/// depth 7 (n, k, oh, ow, c, r, s) accumulating the products.
inline const char *kSmallConvNet = R"({
  "name": "smallconv",
  "inputs": [{"name": "x", "shape": [2, 5, 9, 8]}],
  "outputs": ["y"],
  "nodes": [
    {"name": "conv", "op_type": "Conv", "inputs": ["x", "w", "b"], "outputs": ["c"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "relu", "op_type": "Relu", "inputs": ["c"], "outputs": ["y"]}
  ],
  "initializers": [
    {"name": "w", "shape": [6, 5, 3, 3], "init": "he_normal", "seed": 11},
    {"name": "b", "shape": [6], "init": "he_normal", "seed": 12}
  ]
})";

/// The name of the first statement of `kernel` with `depth` iterators, or "".
inline std::string statementOfDepth(const ir::Kernel &kernel, size_t depth) {
  for (const auto &st : kernel.statements)
    if (st.iterators.size() == depth)
      return st.name;
  return "";
}

/// Writes `json` (a nasc JSON model) to <build dir>/test/schedule_run/<name>.json; the path.
inline std::filesystem::path writeModel(const std::string &name, const std::string &json) {
  std::filesystem::path dir = std::filesystem::path(NASC_BINARY_DIR) / "test" / "schedule_run";
  std::filesystem::create_directories(dir);
  std::filesystem::path path = dir / (name + ".json");
  std::ofstream(path) << json;
  return path;
}

/// Replaces the schedule of each kernel of `model` for which `transform` (given the kernel's
/// Scop with its initial schedule) returns one, and regenerates its AST; the number replaced.
inline int applyToKernels(compiler::PolyhedralModel &model, const KernelTransform &transform) {
  int replaced = 0;
  for (size_t i = 0; i < model.program.calls.size(); ++i) {
    const ir::Kernel &kernel = model.program.calls[i].kernel;
    poly::Scop initial = poly::buildScop(model.isl->get(), kernel);
    std::optional<isl::schedule> schedule = transform(initial, model.dependences[i], kernel);
    if (!schedule)
      continue;
    model.scops[i].schedule = *schedule;
    model.asts[i] = poly::generateAst(model.scops[i]);
    ++replaced;
  }
  return replaced;
}

/// The relative error (test::relativeError) of `model`, JIT-compiled with `threads` threads,
/// against runtime::runReference on the model file `path`, for one standard-normal input
/// (fixed seed) of the model's single input; its single output is compared (infinite if the
/// compiled model returns another number of outputs or another shape).
inline double referenceError(compiler::PolyhedralModel model, const std::string &path,
                             int threads = 1) {
  ir::Graph raw = ir::loadModelRaw(path);
  const std::string &name = raw.inputs.at(0);
  ir::Tensor input = ir::Tensor::zeros(raw.values.at(name).shape);
  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  for (float &v : input.f)
    v = normal(rng);
  compiler::CompileOptions options;
  options.threads = threads;
  auto compiled = compiler::CompiledModel::compile(std::move(model), options);
  std::vector<ir::Tensor> got = compiled->run({input});
  ir::Tensor expected = runtime::runReference(raw, {{name, input}}).at(raw.outputs.at(0));
  if (got.size() != 1 || got[0].shape != expected.shape)
    return std::numeric_limits<double>::infinity();
  return relativeError(got[0].f, expected.f);
}

} // namespace nasc::test
