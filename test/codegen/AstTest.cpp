// isl AST shapes beyond the initial schedule: guards, strides, divisions, recurrences.
#include "CodegenTestSupport.h"
#include "polyhedral/Scop.h"

#include <Eigen/Dense>
#include <catch2/catch.hpp>

using namespace nasc;
using namespace nasc::test;
using Kind = ir::BufferKind;

namespace {

ir::Access access(int tensor, std::vector<ir::AffineExpr> index) {
  ir::Access a;
  a.tensor = tensor;
  a.index = std::move(index);
  return a;
}

/// S0[i], i < 8:  Y[i] = X[2i] - 0.5;   S1[i], i < 5:  Z[i] = X[3i + 1] / 4.
/// Tensors: 0 X[16], 1 Y[8], 2 Z[5].
ir::Kernel stridedKernel() {
  ir::Kernel kernel;
  kernel.name = "strided";
  kernel.tensors = {{"X", {16}}, {"Y", {8}}, {"Z", {5}}};
  ir::Statement s0 =
      statement("S0", {"i"}, {8}, access(1, {it(1, 0)}), ir::Update::Assign,
                ir::Expr::binary(ir::Expr::Op::Sub, ir::Expr::load(access(0, {it(1, 0, 2)})),
                                 ir::Expr::constant(0.5f)));
  ir::Statement s1 =
      statement("S1", {"i"}, {5}, access(2, {it(1, 0)}), ir::Update::Assign,
                ir::Expr::binary(ir::Expr::Op::Div, ir::Expr::load(access(0, {it(1, 0, 3) + 1})),
                                 ir::Expr::constant(4.0f)));
  kernel.statements = {s0, s1};
  return kernel;
}

} // namespace

TEST_CASE("A fused strided schedule (if guards, modulo tests, exact divisions) runs correctly",
          "[codegen][jit]") {
  ir::Kernel kernel = stridedKernel();
  ir::Program program = singleKernelProgram(kernel, {Kind::Input, Kind::Output, Kind::Output});
  poly::IslContext isl;
  poly::Scop scop = poly::buildScop(isl.get(), kernel);
  isl::union_map schedule(isl.get(), "{ S0[i] -> [2i, 0]; S1[i] -> [3i + 1, 1] }");
  isl::ast_build build =
      isl::ast_build::from_context(isl::set::universe(isl::space::unit(isl.get())));
  isl::ast_node ast = build.node_from_schedule_map(schedule.intersect_domain(scop.domain));
  std::string text = poly::astToString(ast);
  INFO(text);
  REQUIRE(text.find("if") != std::string::npos);

  CompiledProgram compiled = compileProgramWithAsts(program, {ast}, "strided_");
  Eigen::ArrayXf x = Eigen::ArrayXf::LinSpaced(16, -3.0f, 4.5f);
  std::vector<float> input(x.data(), x.data() + x.size());
  std::vector<std::vector<float>> outputs = {std::vector<float>(8), std::vector<float>(5)};
  runProgram(compiled, {input}, outputs);

  Eigen::Map<Eigen::ArrayXf, 0, Eigen::InnerStride<2>> even(x.data(), 8);
  Eigen::Map<Eigen::ArrayXf, 0, Eigen::InnerStride<3>> everyThird(x.data() + 1, 5);
  Eigen::ArrayXf y = even - 0.5f, z = everyThird / 4.0f;
  requireClose(outputs[0], std::vector<float>(y.data(), y.data() + 8));
  requireClose(outputs[1], std::vector<float>(z.data(), z.data() + 5));
}

TEST_CASE("A loop-carried recurrence stays sequential despite the vectorization hint",
          "[codegen][jit]") {
  const int64_t n = 100;
  ir::Kernel kernel;
  kernel.name = "prefix_sum";
  kernel.tensors = {{"Y", {n}}};
  kernel.statements = {statement("S0", {"i"}, {n - 1}, access(0, {it(1, 0) + 1}), ir::Update::Add,
                                 ir::Expr::load(access(0, {it(1, 0)})))};
  ir::Program program = singleKernelProgram(kernel, {Kind::Output});
  CompiledProgram compiled = compileProgram(program, "prefix_");
  Eigen::ArrayXf start = Eigen::ArrayXf::LinSpaced(n, 0.25f, 2.0f);
  std::vector<std::vector<float>> outputs = {std::vector<float>(start.data(), start.data() + n)};
  runProgram(compiled, {}, outputs);
  std::vector<float> expected(n);
  double running = 0.0;
  for (int64_t i = 0; i < n; ++i)
    expected[i] = static_cast<float>(running += start[i]);
  requireClose(outputs[0], expected);
}
