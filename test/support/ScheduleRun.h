// Helpers for tests of schedule primitives: a kernel's Scop with its dependences, a Scop with
// another schedule, the golden schedule-tree and AST text that matmulWithInit(5, 6, 3) starts
// with, and end-to-end checks (a small model lowered to Scops, some kernels given a transformed
// schedule, JIT-compiled and run against the Eigen reference executor).
#pragma once

#include "compiler/CompiledModel.h"
#include "compiler/Pipeline.h"
#include "ir/import/ModelLoader.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"
#include "runtime/reference/Reference.h"
#include "test/support/Compare.h"
#include "test/support/FreshPath.h"
#include "test/support/RandomTensor.h"

#include <isl/cpp.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>

namespace nasc::test {

/// `scop` with `schedule` in place of its own.
inline poly::Scop withSchedule(const poly::Scop &scop, const isl::schedule &schedule) {
  poly::Scop copy = scop;
  copy.schedule = schedule;
  return copy;
}

/// `kernel`, its Scop in `ctx` (the initial schedule of poly::buildScop) and its dependences
/// (poly::computeDependences); e.g. `auto [kernel, scop, deps] = Scheduled(ctx, stencil2d());`.
struct Scheduled {
  ir::Kernel kernel;
  poly::Scop scop;
  poly::Dependences deps;
  Scheduled(const poly::IslContext &ctx, ir::Kernel k)
      : kernel(std::move(k)), scop(poly::buildScop(ctx.get(), kernel)),
        deps(poly::computeDependences(scop, kernel)) {}
  /// `scop` with `schedule` in place of its own.
  poly::Scop with(const isl::schedule &schedule) const { return withSchedule(scop, schedule); }
};

/// The schedule tree text of matmulWithInit(5, 6, 3) up to the band of S1 (its init S0 keeps
/// its (i, j) band in the first filter of the sequence).
inline const char *kMatmulDomain =
    R"({ domain: "{ S0[i, j] : 0 <= i <= 4 and 0 <= j <= 5; S1[i, j, k] : 0 <= i <= 4 and )"
    R"(0 <= j <= 5 and 0 <= k <= 2 }", child: { sequence: [ { filter: "{ S0[i, j] }", )"
    R"(child: { schedule: "S0[{ S0[i, j] -> [(i)] }, { S0[i, j] -> [(j)] }]" } }, )"
    R"({ filter: "{ S1[i, j, k] }", child: { schedule: )";

/// The start of the AST of matmulWithInit(5, 6, 3) with S0 in its own (i, j) loop nest.
inline const char *kInitAst = R"({
  for (int c0 = 0; c0 <= 4; c0 += 1)
    for (int c1 = 0; c1 <= 5; c1 += 1)
      S0(c0, c1);
)";

/// A new schedule for one kernel from its Scop (holding the initial schedule of poly::buildScop)
/// and dependences, or nullopt to keep the kernel's pipeline schedule.
using KernelTransform = std::function<std::optional<isl::schedule>(
    const poly::Scop &, const poly::Dependences &, const ir::Kernel &)>;

/// A conv net in nasc's JSON model format named `name`: x [n, c, h, w] -> Conv (`k` output
/// channels, `window` x `window` (odd), padding window / 2, bias; weights he_normal with seed
/// `seed`, bias with seed `seed` + 1) -> Relu -> y [n, k, h, w]. Its conv kernel has a
/// statement of depth 7 (n, k, oh, ow, c, r, s) accumulating the products.
inline std::string convReluNet(const std::string &name, int64_t n, int64_t c, int64_t h, int64_t w,
                               int64_t k, int seed, int64_t window = 3) {
  auto str = [](auto v) { return std::to_string(v); };
  const std::string r = str(window), p = str(window / 2);
  return R"({
  "name": ")" +
         name + R"(",
  "inputs": [{"name": "x", "shape": [)" +
         str(n) + ", " + str(c) + ", " + str(h) + ", " + str(w) + R"(]}],
  "outputs": ["y"],
  "nodes": [
    {"name": "conv", "op_type": "Conv", "inputs": ["x", "w", "b"], "outputs": ["c"],
     "attributes": {"kernel_shape": [)" +
         r + ", " + r + R"(], "pads": [)" + p + ", " + p + ", " + p + ", " + p + R"(]}},
    {"name": "relu", "op_type": "Relu", "inputs": ["c"], "outputs": ["y"]}
  ],
  "initializers": [
    {"name": "w", "shape": [)" +
         str(k) + ", " + str(c) + ", " + r + ", " + r + R"(], "init": "he_normal", "seed": )" +
         str(seed) + R"(},
    {"name": "b", "shape": [)" +
         str(k) + R"(], "init": "he_normal", "seed": )" + str(seed + 1) +
         R"(}
  ]
})";
}

/// convReluNet "smallconv": x [2, 5, 9, 8] -> Conv (6 output channels, seeds 11 and 12) -> Relu
/// -> y [2, 6, 9, 8].
inline const std::string kSmallConvNet = convReluNet("smallconv", 2, 5, 9, 8, 6, 11);

/// The name of the first statement of `kernel` with `depth` iterators, or "".
inline std::string statementOfDepth(const ir::Kernel &kernel, size_t depth) {
  for (const auto &st : kernel.statements)
    if (st.iterators.size() == depth)
      return st.name;
  return "";
}

/// Writes `json` (a nasc JSON model) to <build dir>/test/schedule_run/<pid>/<name>.json; the
/// path.
inline std::filesystem::path writeModel(const std::string &name, const std::string &json) {
  std::filesystem::path path = processDir("schedule_run") / (name + ".json");
  std::ofstream(path) << json;
  return path;
}

/// Replaces the schedule of each kernel of `model` for which `transform` (given the kernel's
/// Scop with its initial schedule) returns one, and regenerates its AST; the number replaced.
inline int applyToKernels(compiler::PolyhedralModel &model, const KernelTransform &transform) {
  int replaced = 0;
  for (size_t i = 0; i < model.program.calls.size(); ++i) {
    const ir::Kernel &kernel = model.program.calls[i].kernel;
    poly::Scop initial = poly::buildScop(model.context(i), kernel);
    std::optional<isl::schedule> schedule =
        transform(initial, *model.kernels[i].dependences, kernel);
    if (!schedule)
      continue;
    model.kernels[i].scop->schedule = *schedule;
    model.kernels[i].ast = poly::generateAst(*model.kernels[i].scop);
    ++replaced;
  }
  return replaced;
}

/// The relative error (test::relativeError) of `model`, JIT-compiled with `threads` threads,
/// against runtime::runReference on the model file `path`, for one input normalTensor(shape,
/// `seed`) of the model's single input; its single output is compared (infinite if the
/// compiled model returns another number of outputs or another shape).
inline double referenceError(compiler::PolyhedralModel model, const std::string &path,
                             int threads = 1, unsigned seed = 5) {
  ir::Graph raw = ir::loadModelRaw(path);
  const std::string &name = raw.inputs.at(0);
  ir::Tensor input = normalTensor(raw.values.at(name).shape, seed);
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
