// Golden tests of loop interchange and the default schedule: isl schedule trees and ASTs of a
// small convolution before and after, and the typed errors of refused requests (a broken
// dependence, a non-permutation, an unknown statement).
#include "compiler/transforms/Interchange.h"
#include "compiler/transforms/DefaultSchedule.h"
#include "compiler/transforms/Primitives.h"
#include "test/support/Kernels.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace nasc;
using test::astText;
using test::it;
using test::stencil2d;

namespace {

/// O[0, k, oh, ow] = 0 (S0), then O[0, k, oh, ow] += I[0, c, oh + r, ow + s] * W[k, c, r, s]
/// (S1, c r s reduction dimensions): K = 2, C = 3, a 4×5 output, a 3×3 window, no padding.
ir::Kernel smallConv() {
  ir::Kernel kernel;
  kernel.name = "conv";
  kernel.tensors = {{"I", {1, 3, 6, 7}}, {"W", {2, 3, 3, 3}}, {"O", {1, 2, 4, 5}}};
  ir::Statement init;
  init.name = "S0";
  init.iterators = {"n", "k", "oh", "ow"};
  init.extents = {1, 2, 4, 5};
  init.reduction = {false, false, false, false};
  init.write = {2, {it(4, 0), it(4, 1), it(4, 2), it(4, 3)}};
  init.value = ir::Expr::constant(0.0f);
  ir::Statement acc;
  acc.name = "S1";
  acc.iterators = {"n", "k", "oh", "ow", "c", "r", "s"};
  acc.extents = {1, 2, 4, 5, 3, 3, 3};
  acc.reduction = {false, false, false, false, true, true, true};
  acc.update = ir::Update::Add;
  acc.write = {2, {it(7, 0), it(7, 1), it(7, 2), it(7, 3)}};
  ir::Access input{0, {it(7, 0), it(7, 4), it(7, 2) + it(7, 5), it(7, 3) + it(7, 6)}};
  ir::Access weight{1, {it(7, 1), it(7, 4), it(7, 5), it(7, 6)}};
  acc.value = ir::Expr::binary(ir::Expr::Op::Mul, ir::Expr::load(input), ir::Expr::load(weight));
  kernel.statements = {init, acc};
  return kernel;
}

const char *kConvDomain =
    R"({ domain: "{ S0[n = 0, k, oh, ow] : 0 <= k <= 1 and 0 <= oh <= 3 and 0 <= ow <= 4; )"
    R"(S1[n = 0, k, oh, ow, c, r, s] : 0 <= k <= 1 and 0 <= oh <= 3 and 0 <= ow <= 4 and )"
    R"(0 <= c <= 2 and 0 <= r <= 2 and 0 <= s <= 2 }", child: { sequence: [ )"
    R"({ filter: "{ S0[n, k, oh, ow] }", child: { schedule: "S0[{ S0[n, k, oh, ow] -> [(n)] }, )"
    R"({ S0[n, k, oh, ow] -> [(k)] }, { S0[n, k, oh, ow] -> [(oh)] }, )"
    R"({ S0[n, k, oh, ow] -> [(ow)] }]" } }, )"
    R"({ filter: "{ S1[n, k, oh, ow, c, r, s] }", child: { schedule: "S1[)";

const char *kConvBefore =
    R"({ S1[n, k, oh, ow, c, r, s] -> [(n)] }, { S1[n, k, oh, ow, c, r, s] -> [(k)] }, )"
    R"({ S1[n, k, oh, ow, c, r, s] -> [(oh)] }, { S1[n, k, oh, ow, c, r, s] -> [(ow)] }, )"
    R"({ S1[n, k, oh, ow, c, r, s] -> [(c)] }, { S1[n, k, oh, ow, c, r, s] -> [(r)] }, )"
    R"({ S1[n, k, oh, ow, c, r, s] -> [(s)] }]" } } ] } })";

const char *kConvAfter =
    R"({ S1[n, k, oh, ow, c, r, s] -> [(n)] }, { S1[n, k, oh, ow, c, r, s] -> [(k)] }, )"
    R"({ S1[n, k, oh, ow, c, r, s] -> [(oh)] }, { S1[n, k, oh, ow, c, r, s] -> [(c)] }, )"
    R"({ S1[n, k, oh, ow, c, r, s] -> [(r)] }, { S1[n, k, oh, ow, c, r, s] -> [(s)] }, )"
    R"({ S1[n, k, oh, ow, c, r, s] -> [(ow)] }]" } } ] } })";

const char *kConvAstAfter = R"({
  for (int c1 = 0; c1 <= 1; c1 += 1)
    for (int c2 = 0; c2 <= 3; c2 += 1)
      for (int c3 = 0; c3 <= 4; c3 += 1)
        S0(0, c1, c2, c3);
  for (int c1 = 0; c1 <= 1; c1 += 1)
    for (int c2 = 0; c2 <= 3; c2 += 1)
      for (int c3 = 0; c3 <= 2; c3 += 1)
        for (int c4 = 0; c4 <= 2; c4 += 1)
          for (int c5 = 0; c5 <= 2; c5 += 1)
            for (int c6 = 0; c6 <= 4; c6 += 1)
              S1(0, c1, c2, c6, c3, c4, c5);
}
)";

} // namespace

TEST_CASE("interchange moves a conv's reduction loops c r s inside ow: schedule tree and AST",
          "[interchange][golden]") {
  poly::IslContext ctx;
  ir::Kernel kernel = smallConv();
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  CHECK(test::scheduleText(scop.schedule) == std::string(kConvDomain) + kConvBefore);
  isl::schedule moved = compiler::interchange(scop, deps, "S1", {0, 1, 2, 4, 5, 6, 3});
  CHECK(test::scheduleText(moved) == std::string(kConvDomain) + kConvAfter);
  CHECK(astText(scop, moved) == kConvAstAfter);
}

TEST_CASE("the default trace interchanges the conv's reduction to (n, k, oh, c, r, s, ow), "
          "unrolls-and-jams k into the ow loop and parallelizes nothing in a kernel this small",
          "[interchange][default-schedule]") {
  poly::IslContext ctx;
  ir::Kernel kernel = smallConv();
  CHECK(compiler::defaultLoopOrder(kernel.statements[0]) == std::vector<int>{0, 1, 2, 3});
  CHECK(compiler::defaultLoopOrder(kernel.statements[1]) == std::vector<int>{0, 1, 2, 4, 5, 6, 3});
  CHECK(compiler::defaultJamDimension(kernel.statements[1]) == std::optional<size_t>(1));
  CHECK(!compiler::defaultJamDimension(kernel.statements[0]));
  CHECK(compiler::defaultJamDimension(test::matmulWithInit(5, 6, 3).statements[1]) ==
        std::optional<size_t>(0));
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  // 40 + 1,080 statement instances, under kMinParallelInstances: no parallelize step.
  compiler::KernelSchedule trace = compiler::defaultTrace(scop, deps, kernel, "conv", {16, 32});
  std::vector<std::string> steps;
  for (const auto &step : trace.steps)
    steps.push_back(step.toString());
  CHECK(steps == std::vector<std::string>{"interchange(S1, order=[0, 1, 2, 4, 5, 6, 3])",
                                          "split(S1, member=1, factor=2, band=0)",
                                          "interchange(S1, order=[0, 1, 3, 4, 5, 6, 7, 2])",
                                          "unroll(S1, member=7, factor=2, band=0)"});
  compiler::KernelSchedule interchangeOnly{"conv", {trace.steps[0]}};
  CHECK(test::scheduleText(compiler::applyTrace(scop, deps, interchangeOnly, "test")) ==
        std::string(kConvDomain) + kConvAfter);
}

TEST_CASE("interchanging a 2-d stencil with a (1, -1) dependence is refused naming it",
          "[interchange][error]") {
  poly::IslContext ctx;
  ir::Kernel kernel = stencil2d();
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  CHECK_NOTHROW(compiler::interchange(scop, deps, "S", {0, 1}));
  CHECK_THROWS_AS(compiler::interchange(scop, deps, "S", {1, 0}), compiler::IllegalTransformation);
  CHECK_THROWS_WITH(compiler::interchange(scop, deps, "S", {1, 0}),
                    "interchange of statement 'S' to order [1, 0] would break the dependence "
                    "{ S[i, j] -> S[i' = 1 + i, j' = -1 + j] : 0 < i <= 2 and 0 < j <= 2 }");
  CHECK(compiler::defaultTrace(scop, deps, kernel, "stencil", {16, 32}).steps.empty());
  // 257 x 256 instances, over kMinParallelInstances: the default trace parallelizes j, the
  // member that carries no dependence.
  auto [large, largeScop, largeDeps] = test::Scheduled(ctx, stencil2d(257));
  compiler::KernelSchedule trace =
      compiler::defaultTrace(largeScop, largeDeps, large, "stencil", {16, 32});
  REQUIRE(trace.steps.size() == 1);
  CHECK(trace.steps[0].toString() == "parallelize(S, member=1, band=0)");
}

TEST_CASE("interchange refuses an order that is not a permutation and an unknown statement",
          "[interchange][error]") {
  poly::IslContext ctx;
  ir::Kernel kernel = smallConv();
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  CHECK_THROWS_AS(compiler::interchange(scop, deps, "S1", {0, 1, 2, 3, 3, 5, 6}),
                  compiler::InvalidPermutation);
  CHECK_THROWS_AS(compiler::interchange(scop, deps, "S0", {1, 0, 2}), compiler::InvalidPermutation);
  CHECK_THROWS_AS(compiler::interchange(scop, deps, "S0", {0, 1, 2, 4}),
                  compiler::InvalidPermutation);
  CHECK_THROWS_WITH(compiler::interchange(scop, deps, "S0", {1, 0, 2}),
                    "interchange of statement 'S0': order [1, 0, 2] is not a permutation of its 4 "
                    "band members");
  CHECK_THROWS_AS(compiler::interchange(scop, deps, "S7", {0}), compiler::UnknownStatement);
  CHECK_THROWS_AS(compiler::interchange(scop, deps, "S7", {0}), Error);
}
