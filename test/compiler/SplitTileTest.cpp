// Golden tests of the split (strip-mining) and tile primitives: isl schedule trees and ASTs of a
// small matmul before and after, their typed refusals (an illegal tiling of a skewed stencil,
// bad factors, sizes, members, bands and statements), and a conv net JIT-compiled with a
// two-level tiled, strip-mined convolution that equals the Eigen reference executor.
#include "compiler/transforms/Split.h"
#include "compiler/transforms/Tile.h"
#include "polyhedral/Legality.h"
#include "test/support/Kernels.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

using namespace nasc;
using test::astText;
using test::kInitAst;
using test::kMatmulDomain;
using test::stencil2d;
using test::withSchedule;

namespace {

const char *kMatmulBefore = R"("S1[{ S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(j)] }, )"
                            R"({ S1[i, j, k] -> [(k)] }]" } } ] } })";

const char *kMatmulSplitK = R"("S1[{ S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(j)] }, )"
                            R"({ S1[i, j, k] -> [(floor((k)/2))] }, )"
                            R"({ S1[i, j, k] -> [((k) mod 2)] }]" } } ] } })";

const char *kMatmulTiled =
    R"("[{ S1[i, j, k] -> [(floor((i)/2))] }, { S1[i, j, k] -> [(floor((j)/4))] }]", )"
    R"(permutable: 1, child: { schedule: "[{ S1[i, j, k] -> [(i)] }, )"
    R"({ S1[i, j, k] -> [(j)] }]", child: { schedule: "[{ S1[i, j, k] -> [(k)] }]" } } } } ] } })";

const char *kMatmulTiledTwice =
    R"("[{ S1[i, j, k] -> [(floor((i)/2))] }, { S1[i, j, k] -> [(floor((j)/4))] }]", )"
    R"(permutable: 1, child: { schedule: "[{ S1[i, j, k] -> [(i)] }, )"
    R"({ S1[i, j, k] -> [(floor((j)/2))] }]", permutable: 1, child: { schedule: )"
    R"("[{ S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(j)] }]", child: { schedule: )"
    R"("[{ S1[i, j, k] -> [(k)] }]" } } } } } ] } })";

const char *kSplitKAst = R"(  for (int c0 = 0; c0 <= 4; c0 += 1)
    for (int c1 = 0; c1 <= 5; c1 += 1)
      for (int c2 = 0; c2 <= 1; c2 += 1)
        for (int c3 = 0; c3 <= min(1, -2 * c2 + 2); c3 += 1)
          S1(c0, c1, 2 * c2 + c3);
}
)";

const char *kTiledAst = R"(  for (int c0 = 0; c0 <= 2; c0 += 1)
    for (int c1 = 0; c1 <= 1; c1 += 1)
      for (int c2 = 2 * c0; c2 <= min(4, 2 * c0 + 1); c2 += 1)
        for (int c3 = 4 * c1; c3 <= min(5, 4 * c1 + 3); c3 += 1)
          for (int c4 = 0; c4 <= 2; c4 += 1)
            S1(c2, c3, c4);
}
)";

const char *kTiledTwiceAst = R"(  for (int c0 = 0; c0 <= 2; c0 += 1)
    for (int c1 = 0; c1 <= 1; c1 += 1)
      for (int c2 = 2 * c0; c2 <= min(4, 2 * c0 + 1); c2 += 1)
        for (int c3 = 2 * c1; c3 <= min(2, 2 * c1 + 1); c3 += 1)
          for (int c5 = 2 * c3; c5 <= 2 * c3 + 1; c5 += 1)
            for (int c6 = 0; c6 <= 2; c6 += 1)
              S1(c2, c5, c6);
}
)";

} // namespace

TEST_CASE("split strip-mines a matmul's k into floor(k / 2) and k mod 2: schedule tree and AST",
          "[split][golden]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  CHECK(test::scheduleText(scop.schedule) == std::string(kMatmulDomain) + kMatmulBefore);
  isl::schedule mined = compiler::split(scop, deps, "S1", 2, 2);
  CHECK(test::scheduleText(mined) == std::string(kMatmulDomain) + kMatmulSplitK);
  CHECK(astText(scop, mined) == std::string(kInitAst) + kSplitKAst);
}

TEST_CASE("tile tiles a matmul's (i, j) by (2, 4) over point loops i, j and k: tree and AST",
          "[tile][golden]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  isl::schedule tiled = compiler::tile(scop, deps, "S1", {2, 4});
  CHECK(test::scheduleText(tiled) == std::string(kMatmulDomain) + kMatmulTiled);
  CHECK(astText(scop, tiled) == std::string(kInitAst) + kTiledAst);
}

TEST_CASE("tiling the point band (i, j) again by (1, 2) gives a two-level tiling: tree and AST",
          "[tile][golden]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  poly::Scop tiled = withSchedule(scop, compiler::tile(scop, deps, "S1", {2, 4}));
  isl::schedule twice = compiler::tile(tiled, deps, "S1", {1, 2}, 1);
  CHECK(test::scheduleText(twice) == std::string(kMatmulDomain) + kMatmulTiledTwice);
  CHECK(astText(scop, twice) == std::string(kInitAst) + kTiledTwiceAst);
}

TEST_CASE("tiling both loops of a stencil with a (1, -1) dependence is refused naming it",
          "[tile][error]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, stencil2d());
  CHECK_THROWS_AS(compiler::tile(scop, deps, "S", {2, 2}), compiler::IllegalTransformation);
  CHECK_THROWS_WITH(compiler::tile(scop, deps, "S", {2, 2}),
                    "tile of statement 'S' with sizes [2, 2] needs band members 0 .. 1 "
                    "permutable, but member 1 runs the dependence { S[i, j] -> S[i' = 1 + i, "
                    "j' = -1 + j] : 0 < i <= 2 and 0 < j <= 2 } backwards");
  CHECK(poly::isValidSchedule(scop, deps, compiler::tile(scop, deps, "S", {2})));
  CHECK(poly::isValidSchedule(scop, deps, compiler::split(scop, deps, "S", 1, 2)));
}

TEST_CASE("split and tile refuse bad factors, sizes, members, bands and statements",
          "[split][tile][error]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  CHECK_THROWS_AS(compiler::split(scop, deps, "S1", 2, 0), compiler::InvalidFactor);
  CHECK_THROWS_WITH(compiler::split(scop, deps, "S1", 2, 0),
                    "split of statement 'S1' member 2 by 0: the factor must be at least 1");
  CHECK_THROWS_AS(compiler::split(scop, deps, "S1", 3, 2), compiler::MemberOutOfRange);
  CHECK_THROWS_WITH(compiler::split(scop, deps, "S1", 3, 2),
                    "split of statement 'S1' member 3 by 2: the band has 3 members (0 .. 2)");
  CHECK_THROWS_AS(compiler::split(scop, deps, "S1", -1, 2), compiler::MemberOutOfRange);
  CHECK_THROWS_AS(compiler::split(scop, deps, "S7", 0, 2), compiler::UnknownStatement);
  CHECK_THROWS_WITH(compiler::split(scop, deps, "S7", 0, 2),
                    "split: no statement named 'S7' in the Scop");
  CHECK_THROWS_AS(compiler::tile(scop, deps, "S1", {2, 0}), compiler::InvalidFactor);
  CHECK_THROWS_WITH(compiler::tile(scop, deps, "S1", {2, 0}),
                    "tile of statement 'S1' with sizes [2, 0]: every size must be at least 1");
  CHECK_THROWS_AS(compiler::tile(scop, deps, "S1", {2, 2, 2, 2}), compiler::MemberOutOfRange);
  CHECK_THROWS_WITH(compiler::tile(scop, deps, "S1", {2, 2, 2, 2}),
                    "tile of statement 'S1' with sizes [2, 2, 2, 2]: needs 1 .. 3 sizes, one per "
                    "leading member of its band");
  CHECK_THROWS_AS(compiler::tile(scop, deps, "S1", {}), compiler::MemberOutOfRange);
  CHECK_THROWS_AS(compiler::tile(scop, deps, "S1", {2}, 1), compiler::NoSuchBand);
  CHECK_THROWS_WITH(compiler::tile(scop, deps, "S1", {2}, 1),
                    "tile: statement 'S1' has no loop band at depth 1");
  CHECK_THROWS_AS(compiler::tile(scop, deps, "S7", {2}), Error);
}

namespace {

/// The conv statement tiled by (1, 4, 4, 2), its point band tiled again by (1, 3, 2) and member
/// 2 of band 4 (ow) split by 3; other kernels kept.
std::optional<isl::schedule> tileConvTwice(const poly::Scop &scop, const poly::Dependences &deps,
                                           const ir::Kernel &kernel) {
  std::string conv = test::statementOfDepth(kernel, 7);
  if (conv.empty())
    return std::nullopt;
  poly::Scop current = withSchedule(scop, compiler::tile(scop, deps, conv, {1, 4, 4, 2}));
  current.schedule = compiler::tile(current, deps, conv, {1, 3, 2}, 1);
  return compiler::split(current, deps, conv, 2, 3, 4);
}

} // namespace

TEST_CASE("a conv tiled on two levels with its ow loop split by 3 equals the reference executor",
          "[tile][jit]") {
  std::string path = test::writeModel("split_tile_conv", test::kSmallConvNet).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path));
  REQUIRE(test::applyToKernels(model, tileConvTwice) == 1);
  CHECK(test::referenceError(std::move(model), path) <= 1e-4);
}
