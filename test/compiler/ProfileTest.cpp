// The profiling hook: a program emitted with `profile` reports one time per kernel call, and
// the times add up to no more than the run.
#include "compiler/CompiledModel.h"
#include "runtime/jit/KernelProfile.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <limits>
#include <numeric>

using namespace nasc;

namespace {

ir::Graph twoReluGraph() {
  ir::Graph g;
  g.name = "relus";
  g.source = "<test>";
  g.inputs = {"x"};
  g.outputs = {"z"};
  g.values["x"] = {ir::DType::Float32, {1, 4, 64, 64}};
  g.values["y"] = {ir::DType::Float32, {1, 4, 64, 64}};
  g.values["z"] = {ir::DType::Float32, {1, 4, 64, 64}};
  g.nodes.push_back({"r1", "Relu", {"x"}, {"y"}, {}});
  g.nodes.push_back({"r2", "Relu", {"y"}, {"z"}, {}});
  return g;
}

} // namespace

TEST_CASE("a profiled program times each kernel call within the run's time", "[profile]") {
  compiler::CompileOptions options;
  options.profile = true;
  auto model = compiler::CompiledModel::compile(twoReluGraph(), options);
  REQUIRE(model->program().calls.size() == 2);
  ir::Tensor x = ir::Tensor::zeros({1, 4, 64, 64}, -1.0f);
  ir::Tensor z = ir::Tensor::zeros({1, 4, 64, 64}, std::numeric_limits<float>::quiet_NaN());
  const float *in[] = {x.f.data()};
  float *out[] = {z.f.data()};
  auto t0 = std::chrono::steady_clock::now();
  runtime::KernelProfile profile(2);
  model->runRaw(in, out);
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<double> seconds = profile.seconds();
  REQUIRE(seconds.size() == 2);
  CHECK(seconds[0] > 0);
  CHECK(seconds[1] > 0);
  CHECK(seconds[0] + seconds[1] <= total);
  CHECK(z.f[0] == 0.0f);
}

TEST_CASE("a program built without the hook records no kernel times", "[profile]") {
  auto model = compiler::CompiledModel::compile(twoReluGraph());
  ir::Tensor x = ir::Tensor::zeros({1, 4, 64, 64}, 2.0f);
  runtime::KernelProfile profile(2);
  std::vector<ir::Tensor> z = model->run({x});
  CHECK(z[0].f[5] == 2.0f);
  CHECK(profile.seconds() == std::vector<double>{0.0, 0.0});
}
