// Golden tests of the fuse primitive: isl schedule trees and ASTs of a small matmul and of a
// three-statement copy pipeline before and after fusion (earlier fused groups included), split
// and tile of a statement's own band below the shared one, the typed refusals (a consumer reading
// ahead of its producer, a sum started before its init, unknown, missing, repeated or
// out-of-order statements, bad depths), and a conv + bias + ReLU kernel fused two ways,
// JIT-compiled and equal to the reference executor.
#include "compiler/transforms/Fuse.h"
#include "compiler/transforms/Interchange.h"
#include "compiler/transforms/ScheduleTreeCopy.h"
#include "compiler/transforms/Split.h"
#include "compiler/transforms/Tile.h"
#include "polyhedral/Legality.h"
#include "test/support/Kernels.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

#include <functional>

using namespace nasc;
using test::astText;
using test::it;
using test::Scheduled;

namespace {

/// S0[i < 6]: B[i] = A[i]; S1[i < 5]: C[i] = B[i + shift]; S2[i < 5]: D[i] = C[i] + C[i].
ir::Kernel copyPipeline(int64_t shift) {
  ir::Kernel kernel;
  kernel.name = "pipeline";
  kernel.tensors = {{"A", {6}}, {"B", {6}}, {"C", {5}}, {"D", {5}}};
  auto copy = [](std::string name, int64_t extent, int to, ir::Expr value) {
    ir::Statement st;
    st.name = std::move(name);
    st.iterators = {"i"};
    st.extents = {extent};
    st.reduction = {false};
    st.write = {to, {it(1, 0)}};
    st.value = std::move(value);
    return st;
  };
  ir::Expr c = ir::Expr::load({2, {it(1, 0)}});
  kernel.statements = {copy("S0", 6, 1, ir::Expr::load({0, {it(1, 0)}})),
                       copy("S1", 5, 2, ir::Expr::load({1, {it(1, 0) + shift}})),
                       copy("S2", 5, 3, ir::Expr::binary(ir::Expr::Op::Add, c, c))};
  return kernel;
}

const char *kMatmulFused =
    R"({ domain: "{ S0[i, j] : 0 <= i <= 4 and 0 <= j <= 5; S1[i, j, k] : 0 <= i <= 4 and )"
    R"(0 <= j <= 5 and 0 <= k <= 2 }", child: { schedule: "[{ S0[i, j] -> [(i)]; )"
    R"(S1[i, j, k] -> [(i)] }, { S0[i, j] -> [(j)]; S1[i, j, k] -> [(j)] }]", permutable: 1, )"
    R"(child: { sequence: [ { filter: "{ S0[i, j] }" }, { filter: "{ S1[i, j, k] }", child: )"
    R"({ schedule: "[{ S1[i, j, k] -> [(k)] }]" } } ] } } })";

const char *kMatmulFusedAst = R"(for (int c0 = 0; c0 <= 4; c0 += 1)
  for (int c1 = 0; c1 <= 5; c1 += 1) {
    S0(c0, c1);
    for (int c2 = 0; c2 <= 2; c2 += 1)
      S1(c0, c1, c2);
  }
)";

} // namespace

TEST_CASE("fuse runs a matmul's init inside its (i, j) loops before the k loop: tree and AST",
          "[fuse][golden]") {
  poly::IslContext ctx;
  Scheduled m(ctx, test::matmulWithInit(5, 6, 3));
  isl::schedule fused = compiler::fuse(m.scop, m.deps, {"S0", "S1"}, 2);
  CHECK(test::scheduleText(fused) == kMatmulFused);
  CHECK(astText(m.scop, fused) == kMatmulFusedAst);
}

TEST_CASE("the subtree copy rebuilds sequences, marks, band flags and loop types; fuse keeps them",
          "[fuse][golden]") {
  poly::IslContext ctx;
  Scheduled m(ctx, test::matmulWithInit(5, 6, 3));
  auto band = m.scop.schedule.root().child(0).child(1).child(0).as<isl::schedule_node_band>();
  band = band.set_permutable(1).member_set_coincident(1, 1);
  band = isl::manage(isl_schedule_node_band_member_set_ast_loop_type(band.release(), 2,
                                                                     isl_ast_loop_unroll))
             .as<isl::schedule_node_band>();
  isl::schedule marked = band.insert_mark("kept").schedule();
  CHECK(test::scheduleText(marked) ==
        R"({ domain: "{ S0[i, j] : 0 <= i <= 4 and 0 <= j <= 5; S1[i, j, k] : 0 <= i <= 4 and )"
        R"(0 <= j <= 5 and 0 <= k <= 2 }", child: { sequence: [ { filter: "{ S0[i, j] }", )"
        R"(child: { schedule: "S0[{ S0[i, j] -> [(i)] }, { S0[i, j] -> [(j)] }]" } }, )"
        R"({ filter: "{ S1[i, j, k] }", child: { mark: "kept", child: { schedule: )"
        R"("S1[{ S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(j)] }, { S1[i, j, k] -> [(k)] }]", )"
        R"(permutable: 1, coincident: [ 0, 1, 0 ], options: "{ unroll[2] }" } } } ] } })");
  CHECK(test::scheduleText(compiler::subtreeSchedule(marked.root().child(0))) ==
        test::scheduleText(marked));
  CHECK_THROWS_AS(compiler::fuse(m.with(marked), m.deps, {"S0", "S1"}, 2), compiler::NoSuchBand);
  CHECK_THROWS_WITH(compiler::fuse(m.with(marked), m.deps, {"S0", "S1"}, 2),
                    "fuse of statements 'S0', 'S1' at depth 2: the loop nest of statement 'S1' "
                    "does not start with a loop band");
  CHECK(astText(m.scop, compiler::fuse(m.with(band.schedule()), m.deps, {"S0", "S1"}, 2)) ==
        R"(for (int c0 = 0; c0 <= 4; c0 += 1)
  for (int c1 = 0; c1 <= 5; c1 += 1) {
    S0(c0, c1);
    S1(c0, c1, 0);
    S1(c0, c1, 1);
    S1(c0, c1, 2);
  }
)");
  auto statement = [&](int child) {
    isl::schedule_node below = m.scop.schedule.root().child(0).child(child).child(0);
    return isl::schedule::from_domain(isl::manage(isl_schedule_node_get_domain(below.get())));
  };
  isl::schedule set = isl::manage(isl_schedule_set(statement(0).release(), statement(1).release()));
  CHECK_THROWS_AS(compiler::subtreeSchedule(set.root().child(0)),
                  compiler::UnsupportedScheduleNode);
  CHECK_THROWS_WITH(compiler::subtreeSchedule(set.root().child(0)),
                    "schedule tree copy: cannot rebuild a set node");
}

TEST_CASE("after fusion a statement's own band is band 1: split and tile it, not the shared one",
          "[fuse][split][tile]") {
  poly::IslContext ctx;
  Scheduled m(ctx, test::matmulWithInit(5, 6, 3));
  poly::Scop fused = m.with(compiler::fuse(m.scop, m.deps, {"S0", "S1"}, 1));
  CHECK(astText(m.scop, fused.schedule) == R"(for (int c0 = 0; c0 <= 4; c0 += 1) {
  for (int c1 = 0; c1 <= 5; c1 += 1)
    S0(c0, c1);
  for (int c1 = 0; c1 <= 5; c1 += 1)
    for (int c2 = 0; c2 <= 2; c2 += 1)
      S1(c0, c1, c2);
}
)");
  CHECK_THROWS_AS(compiler::split(fused, m.deps, "S1", 0, 2), compiler::UnknownStatement);
  CHECK_THROWS_WITH(compiler::split(fused, m.deps, "S1", 0, 2),
                    "split: the band of statement 'S1' also schedules other statements");
  CHECK_THROWS_AS(compiler::interchange(fused, m.deps, "S1", {1, 0, 2}),
                  compiler::UnknownStatement);
  poly::Scop tiled = m.with(compiler::tile(fused, m.deps, "S1", {2, 2}, 1));
  isl::schedule mined = compiler::split(tiled, m.deps, "S0", 0, 4, 1);
  CHECK(poly::isValidSchedule(m.scop, m.deps, mined));
  CHECK(astText(m.scop, mined) == R"(for (int c0 = 0; c0 <= 4; c0 += 1) {
  for (int c1 = 0; c1 <= 1; c1 += 1)
    for (int c2 = 0; c2 <= min(3, -4 * c1 + 5); c2 += 1)
      S0(c0, 4 * c1 + c2);
  for (int c1 = 0; c1 <= 2; c1 += 1)
    for (int c2 = 0; c2 <= 1; c2 += 1)
      for (int c3 = 2 * c1; c3 <= 2 * c1 + 1; c3 += 1)
        for (int c4 = 2 * c2; c4 <= min(2, 2 * c2 + 1); c4 += 1)
          S1(c0, c3, c4);
}
)");
}

namespace {

// isl prints the pieces of a union set or union map in its own (hash) order, not by name.
const char *kPipelineDomain = R"({ domain: "{ S1[i] : 0 <= i <= 4; S2[i] : 0 <= i <= 4; )"
                              R"(S0[i] : 0 <= i <= 5 }", child: )";

const char *kPipelineBefore =
    R"({ sequence: [ { filter: "{ S0[i] }", child: { schedule: "S0[{ S0[i] -> [(i)] }]" } }, )"
    R"({ filter: "{ S1[i] }", child: { schedule: "S1[{ S1[i] -> [(i)] }]" } }, )"
    R"({ filter: "{ S2[i] }", child: { schedule: "S2[{ S2[i] -> [(i)] }]" } } ] } })";

const char *kPipelineTail =
    R"({ sequence: [ { filter: "{ S0[i] }", child: { schedule: "S0[{ S0[i] -> [(i)] }]" } }, )"
    R"({ filter: "{ S2[i]; S1[i] }", child: { schedule: "[{ S2[i] -> [(i)]; S1[i] -> [(i)] }]", )"
    R"(permutable: 1, child: { sequence: [ { filter: "{ S1[i] }" }, { filter: "{ S2[i] }" } )"
    R"(] } } } ] } })";

const char *kPipelineAll =
    R"({ schedule: "[{ S0[i] -> [(i)]; S2[i] -> [(i)]; S1[i] -> [(i)] }]", permutable: 1, )"
    R"(child: { sequence: [ { filter: "{ S0[i] }" }, { filter: "{ S1[i] }" }, )"
    R"({ filter: "{ S2[i] }" } ] } } })";

} // namespace

TEST_CASE("fuse regroups the tail of a sequence, then fuses the head into that group",
          "[fuse][golden]") {
  poly::IslContext ctx;
  Scheduled p(ctx, copyPipeline(0));
  CHECK(test::scheduleText(p.scop.schedule) == std::string(kPipelineDomain) + kPipelineBefore);
  poly::Scop tail = p.with(compiler::fuse(p.scop, p.deps, {"S1", "S2"}, 1));
  CHECK(test::scheduleText(tail.schedule) == std::string(kPipelineDomain) + kPipelineTail);
  CHECK(astText(p.scop, tail.schedule) == R"({
  for (int c0 = 0; c0 <= 5; c0 += 1)
    S0(c0);
  for (int c0 = 0; c0 <= 4; c0 += 1) {
    S1(c0);
    S2(c0);
  }
}
)");
  isl::schedule all = compiler::fuse(tail, p.deps, {"S0", "S2", "S1"}, 1);
  CHECK(test::scheduleText(all) == std::string(kPipelineDomain) + kPipelineAll);
  CHECK(astText(p.scop, all) == R"(for (int c0 = 0; c0 <= 5; c0 += 1) {
  S0(c0);
  if (c0 <= 4) {
    S1(c0);
    S2(c0);
  }
}
)");
}

TEST_CASE("fusing a consumer that reads one element ahead of its producer is refused naming it",
          "[fuse][error]") {
  poly::IslContext ctx;
  Scheduled ahead(ctx, copyPipeline(1));
  CHECK_THROWS_AS(compiler::fuse(ahead.scop, ahead.deps, {"S0", "S1"}, 1),
                  compiler::IllegalTransformation);
  CHECK_THROWS_WITH(compiler::fuse(ahead.scop, ahead.deps, {"S0", "S1"}, 1),
                    "fuse of statements 'S0', 'S1' at depth 1 would break the dependence "
                    "{ S0[i] -> S1[i' = -1 + i] : 0 < i <= 5 }");
  CHECK(poly::isValidSchedule(ahead.scop, ahead.deps,
                              compiler::fuse(ahead.scop, ahead.deps, {"S1", "S2"}, 1)));
}

TEST_CASE("fusing a matmul's init with its k loop in place of j is refused: the sum would start "
          "before its init",
          "[fuse][error]") {
  poly::IslContext ctx;
  Scheduled m(ctx, test::matmulWithInit(5, 6, 3));
  poly::Scop ikj = m.with(compiler::interchange(m.scop, m.deps, "S1", {0, 2, 1}));
  CHECK_THROWS_AS(compiler::fuse(ikj, m.deps, {"S0", "S1"}, 2), compiler::IllegalTransformation);
  CHECK_THROWS_WITH(compiler::fuse(ikj, m.deps, {"S0", "S1"}, 2),
                    "fuse of statements 'S0', 'S1' at depth 2 would break the dependence "
                    "{ S0[i, j] -> S1[i' = i, j' = j, k] : 0 <= i <= 4 and j <= 5 and 0 <= k <= 2 "
                    "and k < j }");
  CHECK(poly::isValidSchedule(m.scop, m.deps, compiler::fuse(ikj, m.deps, {"S0", "S1"}, 1)));
}

TEST_CASE("fuse refuses unknown, missing, repeated and out-of-order statements and bad depths",
          "[fuse][error]") {
  poly::IslContext ctx;
  Scheduled p(ctx, copyPipeline(0));
  Scheduled m(ctx, test::matmulWithInit(5, 6, 3));
  CHECK_THROWS_AS(compiler::fuse(p.scop, p.deps, {"S0", "S7"}, 1), compiler::UnknownStatement);
  CHECK_THROWS_WITH(compiler::fuse(p.scop, p.deps, {"S0", "S7"}, 1),
                    "fuse: no statement named 'S7' in the Scop");
  CHECK_THROWS_AS(compiler::fuse(p.scop, p.deps, {"S1"}, 1), compiler::InvalidFusion);
  CHECK_THROWS_WITH(compiler::fuse(p.scop, p.deps, {"S1"}, 1),
                    "fuse of statement 'S1' at depth 1: needs at least two statements");
  CHECK_THROWS_AS(compiler::fuse(p.scop, p.deps, {"S0", "S2"}, 1), compiler::InvalidFusion);
  CHECK_THROWS_WITH(compiler::fuse(p.scop, p.deps, {"S0", "S2"}, 1),
                    "fuse of statements 'S0', 'S2' at depth 1: statement 'S2' does not follow "
                    "'S0' in the top-level sequence");
  CHECK_THROWS_AS(compiler::fuse(p.scop, p.deps, {"S1", "S0"}, 1), compiler::InvalidFusion);
  CHECK_THROWS_AS(compiler::fuse(p.scop, p.deps, {"S0", "S1", "S0"}, 1), compiler::InvalidFusion);
  CHECK_THROWS_WITH(compiler::fuse(p.scop, p.deps, {"S0", "S1", "S0"}, 1),
                    "fuse of statements 'S0', 'S1', 'S0' at depth 1: statement 'S0' is named "
                    "twice");
  poly::Scop head = p.with(compiler::fuse(p.scop, p.deps, {"S0", "S1"}, 1));
  CHECK_THROWS_AS(compiler::fuse(head, p.deps, {"S1", "S2"}, 1), compiler::InvalidFusion);
  CHECK_THROWS_WITH(compiler::fuse(head, p.deps, {"S1", "S2"}, 1),
                    "fuse of statements 'S1', 'S2' at depth 1: statement 'S0' shares a loop nest "
                    "with statements 'S0', 'S1' but is not named");
  CHECK_THROWS_AS(compiler::fuse(head, p.deps, {"S1", "S0"}, 1), compiler::InvalidFusion);
  CHECK_THROWS_WITH(compiler::fuse(head, p.deps, {"S1", "S0"}, 1),
                    "fuse of statements 'S1', 'S0' at depth 1: the statements already share one "
                    "loop nest");
  CHECK_THROWS_AS(compiler::fuse(m.scop, m.deps, {"S0", "S1"}, 0), compiler::MemberOutOfRange);
  CHECK_THROWS_WITH(compiler::fuse(m.scop, m.deps, {"S0", "S1"}, 0),
                    "fuse of statements 'S0', 'S1' at depth 0: the depth must be at least 1");
  CHECK_THROWS_AS(compiler::fuse(m.scop, m.deps, {"S0", "S1"}, 3), compiler::MemberOutOfRange);
  CHECK_THROWS_WITH(compiler::fuse(m.scop, m.deps, {"S0", "S1"}, 3),
                    "fuse of statements 'S0', 'S1' at depth 3: the outer band of statement 'S0' "
                    "has only 2 members");
}

namespace {

/// The statements of `kernel` that lowering made (S0, S1, ...), without the packing statements
/// (P...) of the default trace's pad_input.
std::vector<ir::Statement> loweredStatements(const ir::Kernel &kernel) {
  std::vector<ir::Statement> lowered;
  std::copy_if(kernel.statements.begin(), kernel.statements.end(), std::back_inserter(lowered),
               [](const ir::Statement &st) { return st.name[0] == 'S'; });
  return lowered;
}

/// Whether `kernel` is a conv (bias init S0, accumulation S1 over 7 loops, ReLU S2).
bool isConvBiasRelu(const ir::Kernel &kernel) {
  const auto sts = loweredStatements(kernel);
  return sts.size() == 3 && sts[0].depth() == 4 && sts[1].depth() == 7 && sts[2].depth() == 4;
}

/// A schedule of a conv kernel's Scop, given its dependences and statement names (S0, S1, S2).
using ConvSchedule = std::function<isl::schedule(const poly::Scop &, const poly::Dependences &,
                                                 const std::vector<std::string> &)>;

/// A conv + ReLU net (test::convReluNet: x [2, 4, 7, 6], 5 output channels, seeds 21 and 22)
/// JIT-compiled with its conv kernel's initial schedule (poly::buildScop) replaced by `schedule`,
/// run on a fixed random input: the error relative to the reference executor.
double fusedConvError(const ConvSchedule &schedule) {
  std::string net = test::convReluNet("fusenet", 2, 4, 7, 6, 5, 21);
  std::string path = test::writeModel("fusenet", net).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path));
  auto fuseConv = [&](const poly::Scop &scop, const poly::Dependences &deps,
                      const ir::Kernel &kernel) -> std::optional<isl::schedule> {
    if (!isConvBiasRelu(kernel))
      return std::nullopt;
    std::vector<std::string> names;
    for (const auto &st : loweredStatements(kernel))
      names.push_back(st.name);
    return schedule(scop, deps, names);
  };
  REQUIRE(test::applyToKernels(model, fuseConv) == 1);
  return test::referenceError(std::move(model), path, 1, 9);
}

} // namespace

TEST_CASE("conv + bias + ReLU fused at depth 4 (n, k, oh, ow) equals the reference executor",
          "[fuse][jit]") {
  CHECK(fusedConvError([](const poly::Scop &scop, const poly::Dependences &deps,
                          const std::vector<std::string> &names) {
          return compiler::fuse(scop, deps, names, 4);
        }) <= 1e-4);
}

TEST_CASE("conv + bias + ReLU fused at depth 3 after moving ow innermost equals the reference",
          "[fuse][jit]") {
  ConvSchedule owInnermost = [](const poly::Scop &scop, const poly::Dependences &deps,
                                const std::vector<std::string> &names) {
    poly::Scop interchanged = scop;
    interchanged.schedule = compiler::interchange(scop, deps, names[1], {0, 1, 2, 4, 5, 6, 3});
    return compiler::fuse(interchanged, deps, names, 3);
  };
  CHECK(fusedConvError(owInnermost) <= 1e-4);
}
