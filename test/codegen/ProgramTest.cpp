// Whole programs: Constant buffers embedded in code, Temp buffers in the planned workspace.
#include "CodegenTestSupport.h"
#include "EigenReference.h"
#include "TestKernels.h"
#include "codegen/MemoryPlan.h"
#include "ir/Error.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace nasc;
using namespace nasc::test;
using Kind = ir::BufferKind;

namespace {

ir::Buffer buffer(const std::string &name, ir::Shape shape, Kind kind) {
  ir::Buffer b;
  b.name = name;
  b.shape = std::move(shape);
  b.kind = kind;
  return b;
}

ir::KernelCall call(ir::Kernel kernel, std::vector<int> args) {
  ir::KernelCall c;
  c.kernel = std::move(kernel);
  c.args = std::move(args);
  return c;
}

/// Y = (X · W1) · W2: gemm_init into Temp T, then gemm_init from T; W1, W2 are Constants.
ir::Program chainedGemms(int64_t m, int64_t k, int64_t h, int64_t n, const std::vector<float> &w1,
                         const std::vector<float> &w2) {
  ir::Program p;
  p.name = "chain";
  p.buffers = {buffer("X", {m, k}, Kind::Input), buffer("W1", {k, h}, Kind::Constant),
               buffer("T", {m, h}, Kind::Temp), buffer("W2", {h, n}, Kind::Constant),
               buffer("Y", {m, n}, Kind::Output)};
  p.buffers[1].data = ir::Tensor::zeros({k, h});
  p.buffers[1].data.f = w1;
  p.buffers[3].data = ir::Tensor::zeros({h, n});
  p.buffers[3].data.f = w2;
  ir::Kernel first = gemmWithInit(m, h, k), second = gemmWithInit(m, n, h);
  first.name = "layer1";
  second.name = "layer2";
  p.calls = {call(first, {0, 1, 2}), call(second, {2, 3, 4})};
  p.inputs = {0};
  p.outputs = {4};
  return p;
}

} // namespace

TEST_CASE("Two kernels chained through a Temp buffer with Constant weights match Eigen",
          "[codegen][jit]") {
  const int64_t m = 6, k = 10, h = 12, n = 7;
  std::vector<float> w1 = randomValues(k * h, 11), w2 = randomValues(h * n, 12);
  ir::Program program = chainedGemms(m, k, h, n, w1, w2);
  CompiledProgram compiled = compileProgram(program, "chain_");
  REQUIRE(compiled.workspaceBytes >= m * h * 4);
  std::vector<float> x = randomValues(m * k, 13);
  std::vector<std::vector<float>> outputs = {std::vector<float>(m * n)};
  runProgram(compiled, {x}, outputs);
  requireClose(outputs[0], eigenGemm(eigenGemm(x, w1, m, h, k), w2, m, n, h));
  CHECK(compiled.optimizedIr.find("chain_const_W1") != std::string::npos);
  CHECK(compiled.optimizedIr.find("align 64") != std::string::npos);
}

TEST_CASE("Memory plan reuses the bytes of Temp buffers whose lifetime ended", "[codegen]") {
  ir::Kernel copy;
  copy.name = "k";
  copy.tensors = {{"a", {16}}, {"b", {16}}};
  ir::Program p;
  p.name = "plan";
  p.buffers = {buffer("in", {16}, Kind::Input),   buffer("t0", {16}, Kind::Temp),
               buffer("t1", {20}, Kind::Temp),    buffer("t2", {16}, Kind::Temp),
               buffer("out", {16}, Kind::Output), buffer("unused", {16}, Kind::Temp)};
  p.calls = {call(copy, {0, 1}), call(copy, {1, 2}), call(copy, {2, 3}), call(copy, {3, 4})};
  codegen::MemoryPlan plan = codegen::planMemory(p);
  CHECK(plan.offsets[0] == -1);
  CHECK(plan.offsets[4] == -1);
  CHECK(plan.offsets[5] == -1);
  CHECK(plan.offsets[1] == 0);
  CHECK(plan.offsets[2] == 64);
  CHECK(plan.offsets[3] == 0);
  CHECK(plan.workspaceBytes == 64 + 128);
}

TEST_CASE("Program emission rejects a call binding one buffer to two tensors", "[codegen]") {
  std::vector<float> w1(4 * 4), w2(4 * 4);
  ir::Program program = chainedGemms(4, 4, 4, 4, w1, w2);
  program.calls[1].args = {2, 2, 4};
  REQUIRE_THROWS_AS(compileProgram(program, "bad_"), Error);
}
