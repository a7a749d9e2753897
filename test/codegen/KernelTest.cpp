// Single kernels through isl AST -> LLVM -> O3 -> JIT, checked against Eigen.
#include "CodegenTestSupport.h"
#include "EigenReference.h"
#include "TestKernels.h"

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace nasc;
using namespace nasc::test;
using Kind = ir::BufferKind;

TEST_CASE("GEMM with an Add update accumulates A*B onto C's previous values", "[codegen][jit]") {
  const int64_t m = 13, n = 37, k = 29;
  bool reductionOutside = GENERATE(false, true);
  CAPTURE(reductionOutside);
  ir::Program program = singleKernelProgram(gemmAccumulate(m, n, k, reductionOutside),
                                            {Kind::Input, Kind::Input, Kind::Output});
  CompiledProgram compiled = compileProgram(program, "gemm_");
  std::vector<float> a = randomValues(m * k, 1), b = randomValues(k * n, 2);
  std::vector<float> c0 = randomValues(m * n, 3);
  std::vector<std::vector<float>> outputs = {c0};
  runProgram(compiled, {a, b}, outputs);
  std::vector<float> expected = eigenGemm(a, b, m, n, k);
  for (size_t i = 0; i < expected.size(); ++i)
    expected[i] += c0[i];
  requireClose(outputs[0], expected);
}

TEST_CASE("GEMM with an init statement overwrites C (init + accumulate statements)",
          "[codegen][jit]") {
  const int64_t m = 16, n = 24, k = 40;
  ir::Program program =
      singleKernelProgram(gemmWithInit(m, n, k), {Kind::Input, Kind::Input, Kind::Output});
  CompiledProgram compiled = compileProgram(program, "gemm_init_");
  std::vector<float> a = randomValues(m * k, 4), b = randomValues(k * n, 5);
  std::vector<std::vector<float>> outputs = {
      std::vector<float>(m * n, std::numeric_limits<float>::quiet_NaN())};
  runProgram(compiled, {a, b}, outputs);
  requireClose(outputs[0], eigenGemm(a, b, m, n, k));
}

TEST_CASE("Padded convolution with bias matches Eigen im2col", "[codegen][jit]") {
  ConvShape shape;
  shape.n = 2;
  shape.c = 3;
  shape.h = 9;
  shape.w = 7;
  shape.k = 5;
  shape.stride = GENERATE(1, 2);
  bool spatialInnermost = GENERATE(false, true);
  CAPTURE(shape.stride, spatialInnermost);
  ir::Program program = singleKernelProgram(conv2dBias(shape, spatialInnermost),
                                            {Kind::Input, Kind::Input, Kind::Input, Kind::Output});
  CompiledProgram compiled = compileProgram(program, "conv_");
  std::vector<float> input = randomValues(shape.n * shape.c * shape.h * shape.w, 6);
  std::vector<float> weights = randomValues(shape.k * shape.c * shape.r * shape.s, 7);
  std::vector<float> bias = randomValues(shape.k, 8);
  std::vector<std::vector<float>> outputs = {std::vector<float>(
      shape.n * shape.k * shape.oh() * shape.ow(), std::numeric_limits<float>::quiet_NaN())};
  runProgram(compiled, {input, weights, bias}, outputs);
  requireClose(outputs[0], eigenConv2dBias(input, weights, bias, shape));
}

TEST_CASE("Global max pooling (Max update from -inf) matches Eigen maxCoeff", "[codegen][jit]") {
  const int64_t n = 2, c = 5, h = 7, w = 11;
  ir::Program program = singleKernelProgram(globalMaxPool(n, c, h, w), {Kind::Input, Kind::Output});
  CompiledProgram compiled = compileProgram(program, "maxpool_");
  std::vector<float> x = randomValues(n * c * h * w, 9);
  for (float &v : x)
    v -= 3.0f;
  std::vector<std::vector<float>> outputs = {std::vector<float>(n * c, 0.0f)};
  runProgram(compiled, {x}, outputs);
  requireClose(outputs[0], eigenGlobalMax(x, n, c, h, w));
}

TEST_CASE("Elementwise clip and scale (Sub, Max, Min, Div, constants) matches Eigen arrays",
          "[codegen][jit]") {
  const int64_t rows = 7, cols = 19;
  auto load = [](int tensor, std::vector<ir::AffineExpr> index) {
    ir::Access a;
    a.tensor = tensor;
    a.index = std::move(index);
    return ir::Expr::load(a);
  };
  auto bin = [](ir::Expr::Op op, ir::Expr l, ir::Expr r) { return ir::Expr::binary(op, l, r); };
  using Op = ir::Expr::Op;
  ir::Kernel kernel;
  kernel.name = "clip_scale";
  kernel.tensors = {{"X", {rows, cols}}, {"B", {cols}}, {"S", {rows}}, {"Y", {rows, cols}}};
  ir::Expr shifted = bin(Op::Sub, load(0, {it(2, 0), it(2, 1)}), load(1, {it(2, 1)}));
  ir::Expr clipped =
      bin(Op::Min, bin(Op::Max, shifted, ir::Expr::constant(0.0f)), ir::Expr::constant(0.5f));
  ir::Access y;
  y.tensor = 3;
  y.index = {it(2, 0), it(2, 1)};
  kernel.statements = {statement("S0", {"i", "j"}, {rows, cols}, y, ir::Update::Assign,
                                 bin(Op::Div, clipped, load(2, {it(2, 0)})))};
  ir::Program program =
      singleKernelProgram(kernel, {Kind::Input, Kind::Input, Kind::Input, Kind::Output});
  CompiledProgram compiled = compileProgram(program, "clip_");
  std::vector<float> x = randomValues(rows * cols, 31), b = randomValues(cols, 32);
  std::vector<float> s = randomValues(rows, 33);
  for (float &v : s)
    v += 2.0f;
  std::vector<std::vector<float>> outputs = {std::vector<float>(rows * cols)};
  runProgram(compiled, {x, b, s}, outputs);

  using RowMajor = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const RowMajor> mx(x.data(), rows, cols);
  Eigen::Map<const Eigen::Array<float, 1, Eigen::Dynamic>> mb(b.data(), cols);
  Eigen::Map<const Eigen::ArrayXf> ms(s.data(), rows);
  RowMajor expected = (mx.rowwise() - mb).cwiseMax(0.0f).cwiseMin(0.5f);
  expected.colwise() /= ms;
  requireClose(outputs[0], std::vector<float>(expected.data(), expected.data() + expected.size()));
}
