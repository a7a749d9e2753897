// Golden tests: dependences of small kernels (matmul with init + accumulate, a time-iterated
// 1-d stencil), which loops they allow to run in parallel, and which schedules they allow.
#include "ir/Error.h"
#include "polyhedral/Legality.h"
#include "polyhedral/ParallelLoops.h"
#include "test/support/Kernels.h"

#include <catch2/catch.hpp>

using namespace nasc;
using test::it;
using test::matmulWithInit;

namespace {

/// A[t + 1, i] = A[t, i] + A[t, i + 1] for 0 <= t < 4, 0 <= i < 5: dependences (1, 0), (1, -1).
ir::Kernel stencil1d() {
  ir::Kernel kernel;
  kernel.name = "stencil";
  kernel.tensors = {{"A", {5, 6}}};
  ir::Statement st;
  st.name = "S";
  st.iterators = {"t", "i"};
  st.extents = {4, 5};
  st.reduction = {false, false};
  st.write = {0, {it(2, 0) + 1, it(2, 1)}};
  st.value = ir::Expr::binary(ir::Expr::Op::Add, ir::Expr::load({0, {it(2, 0), it(2, 1)}}),
                              ir::Expr::load({0, {it(2, 0), it(2, 1) + 1}}));
  kernel.statements = {st};
  return kernel;
}

bool same(const isl::union_map &a, const std::string &b) {
  return a.is_equal(isl::union_map(a.ctx(), b));
}

/// The band of the `index`-th statement of an initial schedule (root domain node, then either
/// the band itself or a sequence of filters over bands).
isl::schedule_node statementBand(const isl::schedule &schedule, int index) {
  isl::schedule_node node = schedule.root().child(0);
  if (isl_schedule_node_get_type(node.get()) == isl_schedule_node_sequence)
    node = node.child(index).child(0);
  return node;
}

/// O[i] += A[i, r, s] for 0 <= i < 2, 0 <= r < 3, 0 <= s < 2: one reduction over (r, s) per i.
ir::Kernel sumOverTwoDims() {
  ir::Kernel kernel;
  kernel.name = "sum2";
  kernel.tensors = {{"A", {2, 3, 2}}, {"O", {2}}};
  ir::Statement st;
  st.name = "S";
  st.iterators = {"i", "r", "s"};
  st.extents = {2, 3, 2};
  st.reduction = {false, true, true};
  st.update = ir::Update::Add;
  st.write = {1, {it(3, 0)}};
  st.value = ir::Expr::load({0, {it(3, 0), it(3, 1), it(3, 2)}});
  kernel.statements = {st};
  return kernel;
}

} // namespace

TEST_CASE("matmul with init: flow/output from init to k = 0 and along k; k is a reduction",
          "[dependences]") {
  poly::IslContext ctx;
  ir::Kernel kernel = matmulWithInit(2, 4, 3);
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  const std::string chain = "S0[i, j] -> S1[i, j, 0] : 0 <= i < 2 and 0 <= j < 4; "
                            "S1[i, j, k] -> S1[i, j, k + 1] : 0 <= i < 2 and 0 <= j < 4 and "
                            "0 <= k < 2";
  CHECK(same(deps.flow, "{ " + chain + " }"));
  CHECK(same(deps.output, "{ " + chain + " }"));
  CHECK(same(deps.anti,
             "{ S1[i, j, k] -> S1[i, j, k + 1] : 0 <= i < 2 and 0 <= j < 4 and 0 <= k < 2 }"));
  CHECK(same(deps.reductions,
             "{ S1[i, j, k] -> S1[i, j, k + 1] : 0 <= i < 2 and 0 <= j < 4 and 0 <= k < 2 }"));
  CHECK(same(deps.others, "{ S0[i, j] -> S1[i, j, 0] : 0 <= i < 2 and 0 <= j < 4 }"));
}

TEST_CASE("matmul: i and j are parallel, k is not without reduction privatisation",
          "[dependences][parallel]") {
  poly::IslContext ctx;
  ir::Kernel kernel = matmulWithInit(2, 4, 3);
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  isl::schedule_node init = statementBand(scop.schedule, 0);
  isl::schedule_node acc = statementBand(scop.schedule, 1);
  CHECK(poly::isParallel(scop, deps, init, 0));
  CHECK(poly::isParallel(scop, deps, init, 1));
  CHECK(poly::isParallel(scop, deps, acc, 0));
  CHECK(poly::isParallel(scop, deps, acc, 1));
  CHECK_FALSE(poly::isParallel(scop, deps, acc, 2));
}

TEST_CASE("1-d stencil: flow dependences (1, 0) and (1, -1); t carries them, i is parallel",
          "[dependences][parallel]") {
  poly::IslContext ctx;
  ir::Kernel kernel = stencil1d();
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  CHECK(same(deps.flow, "{ S[t, i] -> S[t + 1, i] : 0 <= t < 3 and 0 <= i < 5; "
                        "S[t, i] -> S[t + 1, i - 1] : 0 <= t < 3 and 1 <= i < 5 }"));
  CHECK(deps.anti.is_empty());
  CHECK(deps.output.is_empty());
  CHECK(deps.reductions.is_empty());
  isl::schedule_node band = statementBand(scop.schedule, 0);
  CHECK_FALSE(poly::isParallel(scop, deps, band, 0));
  CHECK(poly::isParallel(scop, deps, band, 1));
}

TEST_CASE("a reduction loop is not parallel below another reduction loop of the same sum",
          "[dependences][parallel][regression]") {
  // Under the order (s, r, i) no direct reduction dependence has equal s and different r (they
  // link (r, s) -> (r, s + 1) and (r, 1) -> (r + 1, 0)), yet iterations r = 0 and r = 1 add into
  // the same O[i]: the race behind issue #11's trace 187 (a grouped conv's c' loop run in
  // parallel under its s loop). The reduction's groups must count, not its chain.
  poly::IslContext ctx;
  ir::Kernel kernel = sumOverTwoDims();
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  isl::schedule schedule(ctx.get(),
                         "{ domain: \"{ S[i, r, s] : 0 <= i < 2 and 0 <= r < 3 and 0 <= s < 2 }\", "
                         "child: { schedule: \"[{ S[i, r, s] -> [(s)] }, { S[i, r, s] -> [(r)] }, "
                         "{ S[i, r, s] -> [(i)] }]\" } }");
  isl::schedule_node band = schedule.root().child(0);
  CHECK(same(poly::carriedAtMember(deps, band, 1),
             "{ S[i, r, s] -> S[i, r', s] : 0 <= i < 2 and 0 <= r < 3 and 0 <= r' < 3 and "
             "r' != r and 0 <= s < 2 }"));
  CHECK_FALSE(poly::isParallel(scop, deps, band, 0));
  CHECK_FALSE(poly::isParallel(scop, deps, band, 1));
  CHECK(poly::isParallel(scop, deps, band, 2));
}

TEST_CASE("isParallel rejects a node that is not a band and a member out of range",
          "[dependences][parallel]") {
  poly::IslContext ctx;
  ir::Kernel kernel = stencil1d();
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  CHECK_THROWS_AS(poly::isParallel(scop, deps, scop.schedule.root(), 0), Error);
  CHECK_THROWS_AS(poly::isParallel(scop, deps, statementBand(scop.schedule, 0), 2), Error);
}

TEST_CASE("isValidSchedule: interchanging the stencil's loops reverses (1, -1)",
          "[dependences][legality]") {
  poly::IslContext ctx;
  ir::Kernel kernel = stencil1d();
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  const std::string domain = "domain: \"{ S[t, i] : 0 <= t < 4 and 0 <= i < 5 }\"";
  CHECK(poly::isValidSchedule(scop, deps, scop.schedule));
  CHECK(poly::isValidSchedule(
      scop, deps,
      isl::schedule(ctx.get(), "{ " + domain +
                                   ", child: { schedule: \"[{ S[t, i] -> [(t)] }, "
                                   "{ S[t, i] -> [(t + i)] }]\" } }")));
  CHECK_FALSE(poly::isValidSchedule(
      scop, deps,
      isl::schedule(ctx.get(), "{ " + domain +
                                   ", child: { schedule: \"[{ S[t, i] -> [(i)] }, "
                                   "{ S[t, i] -> [(t)] }]\" } }")));
}

TEST_CASE("isValidSchedule: a reduction may run backwards, but not before its initialisation",
          "[dependences][legality]") {
  poly::IslContext ctx;
  ir::Kernel kernel = matmulWithInit(2, 4, 3);
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  poly::Dependences deps = poly::computeDependences(scop, kernel);
  auto withAccumulation = [&](const std::string &s1, bool s1First) {
    std::string init = "{ filter: \"{ S0[i, j] }\", child: { schedule: "
                       "\"[{ S0[i, j] -> [(i)] }, { S0[i, j] -> [(j)] }]\" } }";
    std::string acc = "{ filter: \"{ S1[i, j, k] }\", child: { schedule: \"" + s1 + "\" } }";
    return isl::schedule(
        ctx.get(), "{ domain: \"{ S0[i, j] : 0 <= i < 2 and 0 <= j < 4; S1[i, j, k] : 0 <= i < 2 "
                   "and 0 <= j < 4 and 0 <= k < 3 }\", child: { sequence: [ " +
                       (s1First ? acc + ", " + init : init + ", " + acc) + " ] } }");
  };
  const std::string reversedK =
      "[{ S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(j)] }, { S1[i, j, k] -> [(-k)] }]";
  CHECK(poly::isValidSchedule(scop, deps, scop.schedule));
  CHECK(poly::isValidSchedule(scop, deps, withAccumulation(reversedK, false)));
  CHECK_FALSE(poly::isValidSchedule(scop, deps, withAccumulation(reversedK, true)));
}

TEST_CASE("parallel marks go above the outermost parallel loop of each nest", "[parallel][ast]") {
  poly::IslContext ctx;
  ir::Kernel kernel = stencil1d();
  poly::Scop scop = poly::buildScop(ctx.get(), kernel);
  scop.schedule = poly::markParallelLoops(scop, poly::computeDependences(scop, kernel));
  CHECK(poly::astToString(poly::generateAst(scop)) == "for (int c0 = 0; c0 <= 3; c0 += 1) {\n"
                                                      "  // parallel\n"
                                                      "  for (int c1 = 0; c1 <= 4; c1 += 1)\n"
                                                      "    S(c0, c1);\n"
                                                      "}\n");

  ir::Kernel gemm = matmulWithInit(1, 4, 3);
  poly::Scop gemmScop = poly::buildScop(ctx.get(), gemm);
  gemmScop.schedule = poly::markParallelLoops(gemmScop, poly::computeDependences(gemmScop, gemm));
  CHECK(poly::astToString(poly::generateAst(gemmScop)) == "{\n"
                                                          "  // parallel\n"
                                                          "  for (int c1 = 0; c1 <= 3; c1 += 1)\n"
                                                          "    S0(0, c1);\n"
                                                          "  // parallel\n"
                                                          "  for (int c1 = 0; c1 <= 3; c1 += 1)\n"
                                                          "    for (int c2 = 0; c2 <= 2; c2 += 1)\n"
                                                          "      S1(0, c1, c2);\n"
                                                          "}\n");
}

TEST_CASE("a loop of one iteration per value of the loops around it is degenerate, and a mark "
          "over it is an error, never a mark on the loop below",
          "[parallel][ast][regression]") {
  // The point loop of a tile of size 1 (isl keeps it as i within the tile loop i): trace 165 of
  // the random Gemm traces (issue #11) parallelized it, isl dropped it, and the mark fell on
  // the reduction loop j below.
  poly::IslContext ctx;
  const std::string domain = "domain: \"{ S[i, j] : 0 <= i <= 2 and 0 <= j <= 3 }\"";
  const std::string pointAndJ =
      "{ schedule: \"[{ S[i, j] -> [(i)] }]\", child: { schedule: \"[{ S[i, j] -> [(j)] }]\" } }";
  isl::schedule tiled(ctx.get(), "{ " + domain +
                                     ", child: { schedule: \"[{ S[i, j] -> [(i)] }]\", "
                                     "child: " +
                                     pointAndJ + " } }");
  auto band = [](const isl::schedule &s, int depth) {
    isl::schedule_node node = s.root().child(0);
    for (int d = 0; d < depth; ++d)
      node = node.child(0);
    return node.as<isl::schedule_node_band>();
  };
  CHECK_FALSE(poly::isDegenerate(band(tiled, 0), 0));
  CHECK(poly::isDegenerate(band(tiled, 1), 0));
  CHECK_FALSE(poly::isDegenerate(band(tiled, 2), 0));

  isl::schedule oneBand(ctx.get(), "{ " + domain +
                                       ", child: { schedule: "
                                       "\"[{ S[i, j] -> [(i)] }, { S[i, j] -> [(2i)] }]\" } }");
  CHECK_FALSE(poly::isDegenerate(band(oneBand, 0), 0));
  CHECK(poly::isDegenerate(band(oneBand, 0), 1));

  poly::Scop scop;
  scop.schedule = isl::schedule(
      ctx.get(), "{ " + domain +
                     ", child: { schedule: "
                     "\"[{ S[i, j] -> [(i)] }]\", child: { mark: \"parallel\", child: " +
                     pointAndJ + " } } }");
  CHECK_THROWS_WITH(poly::generateAst(scop), Catch::Contains("a parallel mark is over a loop of "
                                                             "one iteration"));
}
