// Golden tests of the parallelize primitive: isl schedule trees and ASTs of a small matmul and a
// stencil before and after, its typed refusals (loops carrying a dependence, a reduction loop,
// nested parallel loops, a loop of one iteration, bad members, bands and statements), the marked
// loop kept under its mark by later primitives, and a conv net JIT-compiled with a parallel
// output-channel loop on three threads that equals the Eigen reference executor.
#include "compiler/transforms/Parallelize.h"
#include "compiler/transforms/Fuse.h"
#include "compiler/transforms/Interchange.h"
#include "compiler/transforms/Split.h"
#include "polyhedral/Legality.h"
#include "test/support/Kernels.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

using namespace nasc;
using test::astText;
using test::kMatmulDomain;
using test::stencil2d;
using test::withSchedule;

namespace {

const char *kParallelJ = R"("[{ S1[i, j, k] -> [(i)] }]", child: { mark: "parallel", )"
                         R"(child: { schedule: "[{ S1[i, j, k] -> [(j)] }]", child: { )"
                         R"(schedule: "[{ S1[i, j, k] -> [(k)] }]" } } } } } ] } })";

const char *kParallelJAst = R"({
  for (int c0 = 0; c0 <= 4; c0 += 1)
    for (int c1 = 0; c1 <= 5; c1 += 1)
      S0(c0, c1);
  for (int c0 = 0; c0 <= 4; c0 += 1) {
    // parallel
    for (int c1 = 0; c1 <= 5; c1 += 1)
      for (int c2 = 0; c2 <= 2; c2 += 1)
        S1(c0, c1, c2);
  }
}
)";

const char *kStencilParallelJ =
    R"({ domain: "{ S[i, j] : 0 < i <= 3 and 0 <= j <= 2 }", child: { schedule: )"
    R"("[{ S[i, j] -> [(i)] }]", child: { mark: "parallel", child: { schedule: )"
    R"("[{ S[i, j] -> [(j)] }]" } } } })";

const char *kStencilParallelJAst = R"(for (int c0 = 1; c0 <= 3; c0 += 1) {
  // parallel
  for (int c1 = 0; c1 <= 2; c1 += 1)
    S(c0, c1);
}
)";

/// The conv statement's output-channel loop k (member 1) parallelized; other kernels kept.
std::optional<isl::schedule> parallelizeConvChannels(const poly::Scop &scop,
                                                     const poly::Dependences &deps,
                                                     const ir::Kernel &kernel) {
  std::string conv = test::statementOfDepth(kernel, 7);
  if (conv.empty())
    return std::nullopt;
  return compiler::parallelize(scop, deps, conv, 1);
}

} // namespace

TEST_CASE("parallelize splits a matmul's band around j and marks (j) parallel: tree and AST",
          "[parallelize][golden]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  isl::schedule parallel = compiler::parallelize(scop, deps, "S1", 1);
  CHECK(test::scheduleText(parallel) == std::string(kMatmulDomain) + kParallelJ);
  CHECK(astText(scop, parallel) == kParallelJAst);
}

TEST_CASE("parallelize marks a stencil's j loop, which carries no dependence: tree and AST",
          "[parallelize][golden]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, stencil2d());
  isl::schedule parallel = compiler::parallelize(scop, deps, "S", 1);
  CHECK(test::scheduleText(parallel) == kStencilParallelJ);
  CHECK(astText(scop, parallel) == kStencilParallelJAst);
}

TEST_CASE("parallelizing a stencil's i or a matmul's reduction loop k is refused naming the "
          "carried dependence",
          "[parallelize][error]") {
  poly::IslContext ctx;
  auto [stencil, stencilScop, stencilDeps] = test::Scheduled(ctx, stencil2d());
  CHECK_THROWS_AS(compiler::parallelize(stencilScop, stencilDeps, "S", 0),
                  compiler::CarriedDependence);
  CHECK_THROWS_WITH(compiler::parallelize(stencilScop, stencilDeps, "S", 0),
                    "parallelize of statement 'S' member 0: the loop carries the dependence "
                    "{ S[i, j] -> S[i' = 1 + i, j'] : 0 < i <= 2 and j <= 2 and j' >= -1 + j and "
                    "0 <= j' <= j }");
  auto [matmul, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  CHECK_THROWS_AS(compiler::parallelize(scop, deps, "S1", 2), compiler::CarriedDependence);
  CHECK_THROWS_WITH(compiler::parallelize(scop, deps, "S1", 2),
                    "parallelize of statement 'S1' member 2: the loop carries the dependence "
                    "{ S1[i, j, k] -> S1[i' = i, j' = j, k' = 1 + k] : 0 <= i <= 4 and "
                    "0 <= j <= 5 and 0 <= k <= 1 }, a reduction (it would need a private "
                    "accumulator)");
}

TEST_CASE("a loop marked parallel stays the one under the mark: interchange cannot move another "
          "loop there",
          "[parallelize][interchange][error]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  poly::Scop parallel = withSchedule(scop, compiler::parallelize(scop, deps, "S1", 0));
  CHECK_THROWS_AS(compiler::interchange(parallel, deps, "S1", {2, 0, 1}),
                  compiler::InvalidPermutation);
  isl::schedule split = compiler::split(parallel, deps, "S1", 0, 2);
  CHECK(astText(scop, split) == R"({
  for (int c0 = 0; c0 <= 4; c0 += 1)
    for (int c1 = 0; c1 <= 5; c1 += 1)
      S0(c0, c1);
  // parallel
  for (int c0 = 0; c0 <= 2; c0 += 1)
    for (int c1 = 0; c1 <= min(1, -2 * c0 + 4); c1 += 1)
      for (int c2 = 0; c2 <= 5; c2 += 1)
        for (int c3 = 0; c3 <= 2; c3 += 1)
          S1(2 * c0 + c1, c2, c3);
}
)");
}

TEST_CASE("a loop that fuse made shared is parallelized for all its statements: AST",
          "[parallelize][fuse][golden]") {
  poly::IslContext ctx;
  ir::Kernel kernel = test::matmulWithInit(5, 6, 3);
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  poly::Scop fused = withSchedule(scop, compiler::fuse(scop, deps, {"S0", "S1"}, 2));
  isl::schedule parallel = compiler::parallelize(fused, deps, "S1", 1);
  CHECK(astText(scop, parallel) == R"(for (int c0 = 0; c0 <= 4; c0 += 1) {
  // parallel
  for (int c1 = 0; c1 <= 5; c1 += 1) {
    S0(c0, c1);
    for (int c2 = 0; c2 <= 2; c2 += 1)
      S1(c0, c1, c2);
  }
}
)");
  CHECK(poly::isValidSchedule(scop, deps, parallel));
  CHECK_THROWS_AS(compiler::parallelize(fused, deps, "S0", 2, 1), compiler::NoSuchBand);
}

TEST_CASE("parallelize refuses nested parallel loops, bad members, bands and statements",
          "[parallelize][error]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  poly::Scop outer = withSchedule(scop, compiler::parallelize(scop, deps, "S1", 0));
  CHECK_THROWS_AS(compiler::parallelize(outer, deps, "S1", 0, 1), compiler::NestedParallelism);
  CHECK_THROWS_WITH(compiler::parallelize(outer, deps, "S1", 0, 1),
                    "parallelize of statement 'S1' member 0: the band is nested with a loop "
                    "already marked parallel");
  CHECK_THROWS_AS(compiler::parallelize(outer, deps, "S1", 0), compiler::NestedParallelism);
  poly::Scop inner = withSchedule(scop, compiler::parallelize(scop, deps, "S1", 1));
  CHECK_THROWS_AS(compiler::parallelize(inner, deps, "S1", 0), compiler::NestedParallelism);
  CHECK_THROWS_AS(compiler::parallelize(scop, deps, "S1", 3), compiler::MemberOutOfRange);
  CHECK_THROWS_WITH(compiler::parallelize(scop, deps, "S1", 3),
                    "parallelize of statement 'S1' member 3: the band has 3 members (0 .. 2)");
  CHECK_THROWS_AS(compiler::parallelize(scop, deps, "S1", -1), compiler::MemberOutOfRange);
  CHECK_THROWS_AS(compiler::parallelize(scop, deps, "S1", 0, 1), compiler::NoSuchBand);
  CHECK_THROWS_AS(compiler::parallelize(scop, deps, "S7", 0), compiler::UnknownStatement);
  // A loop of one iteration: isl's AST drops it, and a mark on it would land on the loop below.
  auto [rowKernel, rowScop, rowDeps] = test::Scheduled(ctx, test::matmulWithInit(1, 6, 3));
  CHECK_THROWS_AS(compiler::parallelize(rowScop, rowDeps, "S1", 0), compiler::SingleIteration);
  CHECK_THROWS_WITH(compiler::parallelize(rowScop, rowDeps, "S1", 0),
                    "parallelize of statement 'S1' member 0: the loop has at most one iteration");
}

TEST_CASE("a conv net with its output-channel loop parallelized on three threads equals the "
          "reference executor",
          "[parallelize][jit]") {
  std::string path = test::writeModel("parallelize_conv", test::kSmallConvNet).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path));
  REQUIRE(test::applyToKernels(model, parallelizeConvChannels) == 1);
  CHECK(test::referenceError(std::move(model), path, 3) <= 1e-4);
}
