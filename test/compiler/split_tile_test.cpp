// Golden tests of the split (strip-mining) and tile primitives: isl schedule trees and ASTs of a
// small matmul before and after, their typed refusals (an illegal tiling of a skewed stencil,
// bad factors, sizes, members, bands and statements), and a conv net JIT-compiled with a
// two-level tiled, strip-mined convolution that equals the Eigen reference executor.
#include "compiler/CompiledModel.h"
#include "compiler/Pipeline.h"
#include "compiler/transforms/Split.h"
#include "compiler/transforms/Tile.h"
#include "ir/import/ModelLoader.h"
#include "runtime/reference/Reference.h"
#include "test/support/Kernels.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace nasc;
using test::astText;
using test::it;
using test::stencil2d;
namespace fs = std::filesystem;

namespace {

const char *kMatmulDomain =
    R"({ domain: "{ S0[i, j] : 0 <= i <= 4 and 0 <= j <= 5; S1[i, j, k] : 0 <= i <= 4 and )"
    R"(0 <= j <= 5 and 0 <= k <= 2 }", child: { sequence: [ { filter: "{ S0[i, j] }", )"
    R"(child: { schedule: "S0[{ S0[i, j] -> [(i)] }, { S0[i, j] -> [(j)] }]" } }, )"
    R"({ filter: "{ S1[i, j, k] }", child: { schedule: )";

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

const char *kInitAst = R"({
  for (int c0 = 0; c0 <= 4; c0 += 1)
    for (int c1 = 0; c1 <= 5; c1 += 1)
      S0(c0, c1);
)";

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

/// `scop` with `schedule` in place of its own.
poly::Scop withSchedule(const poly::Scop &scop, const isl::schedule &schedule) {
  poly::Scop copy = scop;
  copy.schedule = schedule;
  return copy;
}

} // namespace

TEST_CASE("split strip-mines a matmul's k into floor(k / 2) and k mod 2: schedule tree and AST",
          "[split][golden]") {
  poly::IslContext ctx;
  ir::Kernel kernel = test::matmulWithInit(5, 6, 3);
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  CHECK(test::scheduleText(scop.schedule) == std::string(kMatmulDomain) + kMatmulBefore);
  isl::schedule mined = compiler::split(scop, deps, "S1", 2, 2);
  CHECK(test::scheduleText(mined) == std::string(kMatmulDomain) + kMatmulSplitK);
  CHECK(astText(scop, mined) == std::string(kInitAst) + kSplitKAst);
}

TEST_CASE("tile tiles a matmul's (i, j) by (2, 4) over point loops i, j and k: tree and AST",
          "[tile][golden]") {
  poly::IslContext ctx;
  ir::Kernel kernel = test::matmulWithInit(5, 6, 3);
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  isl::schedule tiled = compiler::tile(scop, deps, "S1", {2, 4});
  CHECK(test::scheduleText(tiled) == std::string(kMatmulDomain) + kMatmulTiled);
  CHECK(astText(scop, tiled) == std::string(kInitAst) + kTiledAst);
}

TEST_CASE("tiling the point band (i, j) again by (1, 2) gives a two-level tiling: tree and AST",
          "[tile][golden]") {
  poly::IslContext ctx;
  ir::Kernel kernel = test::matmulWithInit(5, 6, 3);
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  poly::Scop tiled = withSchedule(scop, compiler::tile(scop, deps, "S1", {2, 4}));
  isl::schedule twice = compiler::tile(tiled, deps, "S1", {1, 2}, 1);
  CHECK(test::scheduleText(twice) == std::string(kMatmulDomain) + kMatmulTiledTwice);
  CHECK(astText(scop, twice) == std::string(kInitAst) + kTiledTwiceAst);
}

TEST_CASE("tiling both loops of a stencil with a (1, -1) dependence is refused naming it",
          "[tile][error]") {
  poly::IslContext ctx;
  ir::Kernel kernel = stencil2d();
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
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
  ir::Kernel kernel = test::matmulWithInit(5, 6, 3);
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
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

const char *kTileNet = R"({
  "name": "tilenet",
  "inputs": [{"name": "x", "shape": [2, 5, 9, 8]}],
  "outputs": ["y"],
  "nodes": [
    {"name": "conv", "op_type": "Conv", "inputs": ["x", "w", "b"], "outputs": ["c"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "relu", "op_type": "Relu", "inputs": ["c"], "outputs": ["y"]}
  ],
  "initializers": [
    {"name": "w", "shape": [6, 5, 3, 3], "init": "he_normal", "seed": 11},
    {"name": "b", "shape": [6], "init": "he_normal", "seed": 12}
  ]
})";

fs::path writeTileNet() {
  fs::path dir = fs::path(NASC_BINARY_DIR) / "test" / "split_tile";
  fs::create_directories(dir);
  fs::path model = dir / "tilenet.json";
  std::ofstream(model) << kTileNet;
  return model;
}

ir::Tensor randomInput(const ir::Shape &shape) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  ir::Tensor t = ir::Tensor::zeros(shape);
  for (float &v : t.f)
    v = normal(rng);
  return t;
}

/// max_k |got_k - expected_k| / max_k |expected_k|.
double maxRelativeError(const std::vector<float> &got, const std::vector<float> &expected) {
  double err = 0, scale = 0;
  for (size_t k = 0; k < got.size() && k < expected.size(); ++k) {
    err = std::max(err, std::fabs(static_cast<double>(got[k]) - expected[k]));
    scale = std::max(scale, std::fabs(static_cast<double>(expected[k])));
  }
  return err / scale;
}

/// The name of the first statement of `kernel` with `depth` iterators.
std::string statementOfDepth(const ir::Kernel &kernel, size_t depth) {
  for (const auto &st : kernel.statements)
    if (st.iterators.size() == depth)
      return st.name;
  return "";
}

} // namespace

TEST_CASE("a conv tiled on two levels with its ow loop split by 3 equals the reference executor",
          "[tile][jit]") {
  fs::path path = writeTileNet();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path.string()));
  int tiled = 0;
  for (size_t i = 0; i < model.program.calls.size(); ++i) {
    std::string conv = statementOfDepth(model.program.calls[i].kernel, 7);
    if (conv.empty())
      continue;
    poly::Scop &scop = model.scops[i];
    scop.schedule = poly::buildScop(model.isl->get(), model.program.calls[i].kernel).schedule;
    scop.schedule = compiler::tile(scop, model.dependences[i], conv, {1, 4, 4, 2});
    scop.schedule = compiler::tile(scop, model.dependences[i], conv, {1, 3, 2}, 1);
    scop.schedule = compiler::split(scop, model.dependences[i], conv, 2, 3, 4);
    model.asts[i] = poly::generateAst(scop);
    ++tiled;
  }
  REQUIRE(tiled == 1);
  ir::Tensor input = randomInput({2, 5, 9, 8});
  auto compiled = compiler::CompiledModel::compile(std::move(model));
  std::vector<ir::Tensor> got = compiled->run({input});
  auto expected = runtime::runReference(ir::loadModelRaw(path.string()), {{"x", input}}).at("y");
  REQUIRE(got.size() == 1);
  REQUIRE(got[0].shape == expected.shape);
  CHECK(maxRelativeError(got[0].f, expected.f) <= 1e-4);
}
