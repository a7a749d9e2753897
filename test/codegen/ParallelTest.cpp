// Parallel loops: kernels whose parallel loops are marked from their dependences run through
// nasc_parallel_for on 1, 2 and 3 threads and give the values of Eigen and of one thread (up to
// FMA contraction, which may differ between the vector body and the scalar tail of a range).
#include "CodegenTestSupport.h"
#include "EigenReference.h"
#include "TestKernels.h"

#include <catch2/catch.hpp>

#include <limits>

using namespace nasc;
using namespace nasc::test;
using Kind = ir::BufferKind;

namespace {

/// Runs `compiled` with 1, 2 and 3 threads; checks every result against `expected` (Eigen)
/// and the multi-threaded results against the single-threaded one.
void requireSameOnAllThreadCounts(const CompiledProgram &compiled,
                                  const std::vector<std::vector<float>> &inputs, size_t outputSize,
                                  const std::vector<float> &expected) {
  std::vector<float> single;
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    std::vector<std::vector<float>> outputs = {
        std::vector<float>(outputSize, std::numeric_limits<float>::quiet_NaN())};
    runProgram(compiled, inputs, outputs, threads);
    requireClose(outputs[0], expected);
    if (threads == 1)
      single = outputs[0];
    else
      requireClose(outputs[0], single);
  }
}

} // namespace

TEST_CASE("A padded convolution with a parallel loop matches Eigen on 1, 2 and 3 threads",
          "[codegen][jit][parallel]") {
  ConvShape shape;
  shape.n = GENERATE(1, 2);
  shape.c = 3;
  shape.h = 9;
  shape.w = 7;
  shape.k = 5;
  shape.stride = GENERATE(1, 2);
  CAPTURE(shape.n, shape.stride);
  ir::Program program = singleKernelProgram(conv2dBias(shape, false),
                                            {Kind::Input, Kind::Input, Kind::Input, Kind::Output});
  CompiledProgram compiled = compileParallelProgram(program, "pconv_");
  REQUIRE(compiled.optimizedIr.find("call void @nasc_parallel_for") != std::string::npos);
  std::vector<float> input = randomValues(shape.n * shape.c * shape.h * shape.w, 6);
  std::vector<float> weights = randomValues(shape.k * shape.c * shape.r * shape.s, 7);
  std::vector<float> bias = randomValues(shape.k, 8);
  requireSameOnAllThreadCounts(compiled, {input, weights, bias},
                               shape.n * shape.k * shape.oh() * shape.ow(),
                               eigenConv2dBias(input, weights, bias, shape));
}

TEST_CASE("A GEMM with init and accumulate statements in parallel matches Eigen on 1, 2, 3 "
          "threads",
          "[codegen][jit][parallel]") {
  const int64_t m = GENERATE(1, 7), n = 24, k = 40;
  CAPTURE(m);
  ir::Program program =
      singleKernelProgram(gemmWithInit(m, n, k), {Kind::Input, Kind::Input, Kind::Output});
  CompiledProgram compiled = compileParallelProgram(program, "pgemm_");
  REQUIRE(compiled.optimizedIr.find("call void @nasc_parallel_for") != std::string::npos);
  std::vector<float> a = randomValues(m * k, 4), b = randomValues(k * n, 5);
  requireSameOnAllThreadCounts(compiled, {a, b}, m * n, eigenGemm(a, b, m, n, k));
}
