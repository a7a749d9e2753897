// Golden tests of the unroll primitive: isl schedule trees and ASTs of a small matmul before and
// after (strip-mined and partly unrolled, fully unrolled, and the unroll kept through later
// interchange, split and tile), its typed refusals (bad factors, members, bands and statements),
// and a conv net JIT-compiled with unrolled window loops that equals the Eigen reference executor.
#include "compiler/transforms/Unroll.h"
#include "compiler/transforms/Interchange.h"
#include "compiler/transforms/Split.h"
#include "compiler/transforms/Tile.h"
#include "test/support/Kernels.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

using namespace nasc;
using test::astText;
using test::kInitAst;
using test::kMatmulDomain;
using test::withSchedule;

namespace {

const char *kUnrollKBy2 =
    R"("S1[{ S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(j)] }, )"
    R"({ S1[i, j, k] -> [(floor((k)/2))] }, { S1[i, j, k] -> [((k) mod 2)] }]", )"
    R"(options: "{ unroll[3] }" } } ] } })";

const char *kUnrollKBy2Ast = R"(  for (int c0 = 0; c0 <= 4; c0 += 1)
    for (int c1 = 0; c1 <= 5; c1 += 1)
      for (int c2 = 0; c2 <= 1; c2 += 1) {
        S1(c0, c1, 2 * c2);
        if (c2 == 0)
          S1(c0, c1, 1);
      }
}
)";

const char *kUnrollKFully = R"("S1[{ S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(j)] }, )"
                            R"({ S1[i, j, k] -> [(k)] }]", options: "{ unroll[2] }" } } ] } })";

const char *kUnrollKFullyAst = R"(  for (int c0 = 0; c0 <= 4; c0 += 1)
    for (int c1 = 0; c1 <= 5; c1 += 1) {
      S1(c0, c1, 0);
      S1(c0, c1, 1);
      S1(c0, c1, 2);
    }
}
)";

const char *kUnrollThenInterchange =
    R"("S1[{ S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(k)] }, )"
    R"({ S1[i, j, k] -> [(j)] }]", options: "{ unroll[1] }" } } ] } })";

const char *kUnrollThenSplit =
    R"("S1[{ S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(floor((j)/4))] }, )"
    R"({ S1[i, j, k] -> [((j) mod 4)] }, { S1[i, j, k] -> [(k)] }]", )"
    R"(options: "{ unroll[3] }" } } ] } })";

/// isl's band tiling gives both the tile loop floor(j / 2) and the point loop j the loop type
/// of j: every value of j is still unrolled.
const char *kUnrollJThenTile =
    R"("[{ S1[i, j, k] -> [(floor((i)/2))] }, { S1[i, j, k] -> [(floor((j)/2))] }]", )"
    R"(permutable: 1, options: "{ unroll[1] }", child: { schedule: )"
    R"("[{ S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(j)] }]", options: "{ unroll[1] }", )"
    R"(child: { schedule: "[{ S1[i, j, k] -> [(k)] }]" } } } } ] } })";

/// The conv statement's window loops unrolled: s (member 6, 3 values) by 2 after
/// strip-mining, then r (member 5, 3 values) fully; other kernels kept.
std::optional<isl::schedule> unrollConvWindow(const poly::Scop &scop, const poly::Dependences &deps,
                                              const ir::Kernel &kernel) {
  std::string conv = test::statementOfDepth(kernel, 7);
  if (conv.empty())
    return std::nullopt;
  poly::Scop current = withSchedule(scop, compiler::unroll(scop, deps, conv, 6, 2));
  return compiler::unroll(current, deps, conv, 5, 3);
}

} // namespace

TEST_CASE("unroll by 2 strip-mines a matmul's k and unrolls k mod 2: tree and AST",
          "[unroll][golden]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  isl::schedule unrolled = compiler::unroll(scop, deps, "S1", 2, 2);
  CHECK(test::scheduleText(unrolled) == std::string(kMatmulDomain) + kUnrollKBy2);
  CHECK(astText(scop, unrolled) == std::string(kInitAst) + kUnrollKBy2Ast);
}

TEST_CASE("unroll by at least k's 3 values unrolls k fully without a split: tree and AST",
          "[unroll][golden]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  isl::schedule unrolled = compiler::unroll(scop, deps, "S1", 2, 3);
  CHECK(test::scheduleText(unrolled) == std::string(kMatmulDomain) + kUnrollKFully);
  CHECK(astText(scop, unrolled) == std::string(kInitAst) + kUnrollKFullyAst);
  CHECK(test::scheduleText(compiler::unroll(scop, deps, "S1", 2, 8)) ==
        test::scheduleText(unrolled));
}

TEST_CASE("an unrolled loop stays unrolled through interchange, split and tile of its band",
          "[unroll][golden]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  poly::Scop unrolled = withSchedule(scop, compiler::unroll(scop, deps, "S1", 2, 3));
  CHECK(test::scheduleText(compiler::interchange(unrolled, deps, "S1", {0, 2, 1})) ==
        std::string(kMatmulDomain) + kUnrollThenInterchange);
  CHECK(test::scheduleText(compiler::split(unrolled, deps, "S1", 1, 4)) ==
        std::string(kMatmulDomain) + kUnrollThenSplit);
  poly::Scop unrolledJ = withSchedule(scop, compiler::unroll(scop, deps, "S1", 1, 8));
  CHECK(test::scheduleText(compiler::tile(unrolledJ, deps, "S1", {2, 2})) ==
        std::string(kMatmulDomain) + kUnrollJThenTile);
}

TEST_CASE("unroll refuses bad factors, members, bands and statements", "[unroll][error]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  CHECK_THROWS_AS(compiler::unroll(scop, deps, "S1", 2, 1), compiler::InvalidFactor);
  CHECK_THROWS_WITH(compiler::unroll(scop, deps, "S1", 2, 1),
                    "unroll of statement 'S1' member 2 by 1: the factor must be at least 2");
  CHECK_THROWS_AS(compiler::unroll(scop, deps, "S1", 2, 0), compiler::InvalidFactor);
  CHECK_THROWS_AS(compiler::unroll(scop, deps, "S1", 2, -3), compiler::InvalidFactor);
  CHECK_THROWS_AS(compiler::unroll(scop, deps, "S1", 3, 2), compiler::MemberOutOfRange);
  CHECK_THROWS_WITH(compiler::unroll(scop, deps, "S1", 3, 2),
                    "unroll of statement 'S1' member 3 by 2: the band has 3 members (0 .. 2)");
  CHECK_THROWS_AS(compiler::unroll(scop, deps, "S1", -1, 2), compiler::MemberOutOfRange);
  CHECK_THROWS_AS(compiler::unroll(scop, deps, "S1", 0, 2, 1), compiler::NoSuchBand);
  CHECK_THROWS_AS(compiler::unroll(scop, deps, "S7", 0, 2), compiler::UnknownStatement);
}

TEST_CASE("a conv net with its window loops unrolled (s by 2 after strip-mining, r fully) equals "
          "the reference executor",
          "[unroll][jit]") {
  std::string path = test::writeModel("unroll_conv", test::kSmallConvNet).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path));
  REQUIRE(test::applyToKernels(model, unrollConvWindow) == 1);
  CHECK(test::referenceError(std::move(model), path) <= 1e-4);
}
