// seq3(P) as an isl rewrite of the convolution's Scop (compiler/nas/Seq3Scop.h): strip i must give
// exactly the domain and accesses of the lowered strip Conv, once its rows are shifted by the
// strip's first row a_i, its reads of the Slice's output go through the Slice's copy into X, and
// its writes to Y_i go through the Concat's copy into Y. Padding is a domain constraint on both
// sides, so the rows outside X must be excluded alike.
#include "compiler/nas/Seq3Scop.h"
#include "ir/passes/Passes.h"
#include "test/support/ConvGraph.h"
#include "test/support/ScopCheck.h"

#include <catch2/catch.hpp>

namespace {

using namespace nasc;
using Ints = std::vector<int64_t>;

/// x (1, 4, 8, 8) -> conv (4 -> 6, 3x3, `pad` on every side, `stride`, bias) -> y.
ir::Graph conv(int64_t stride, int64_t pad) {
  return test::prepared(test::convGraph("conv.json", {{1, 4, 8, 8}, 6, stride, pad}));
}

nas::ScopRelations relationsOf(isl::ctx ctx, const ir::Kernel &kernel) {
  return nas::relationsOf(poly::buildScop(ctx, kernel));
}

/// { S[n, k, oh, ...] -> S[n, k, a + oh, ...] } on `space`.
isl::union_map shiftRows(const isl::space &space, int64_t a) {
  const isl::multi_aff id = isl::multi_aff::identity_on_domain(space);
  return isl::union_map(id.set_at(2, id.at(2).add_constant(isl::val(space.ctx(), a))).as_map());
}

/// The expected strip i of seq3(P): the lowered strip Conv's reduction with its rows shifted by
/// its first row, read through its Slice (when it has one) and written through the Concat.
nas::ScopRelations loweredStrip(isl::ctx ctx, const ir::Program &program, size_t i, int64_t a) {
  const std::string strip = "conv_strip" + std::to_string(i);
  const ir::Kernel &kernel = nas::kernelOf(program, strip);
  const std::string &reduction = nas::findReduction(kernel).statement->name;
  const nas::ScopRelations part = nas::statementOnly(relationsOf(ctx, kernel), reduction);
  const isl::union_map concat =
      nas::copySources(relationsOf(ctx, nas::kernelOf(program, "conv_concat"))).reverse();
  isl::union_map reads = part.reads;
  if (std::any_of(program.calls.begin(), program.calls.end(),
                  [&](const ir::KernelCall &call) { return call.nodes.at(0) == strip + "_rows"; }))
    reads = nas::throughCopy(
        reads, nas::copySources(relationsOf(ctx, nas::kernelOf(program, strip + "_rows"))));
  const isl::union_map shift = shiftRows(nas::statementDomain(part, reduction).space(), a);
  return {part.domain.apply(shift), nas::throughCopy(reads, concat).apply_domain(shift),
          nas::throughCopy(part.writes, concat).apply_domain(shift)};
}

/// Shapes of the dense kernel's tensors and of the strips' weights, as lowering declares them.
std::map<std::string, ir::Shape> loweredShapes(const ir::Kernel &dense,
                                               const ir::Program &program) {
  std::map<std::string, ir::Shape> shapes = nas::tensorShapes(dense);
  for (const ir::KernelCall &call : program.calls)
    shapes.merge(nas::tensorShapes(call.kernel));
  return shapes;
}

struct Case {
  int64_t stride, pad, P;
  std::vector<Ints> rows; ///< By hand: [a_i, b_i).
};

} // namespace

TEST_CASE("seq3Scop equals the lowered strips composed with the Slices and the Concat",
          "[nas][neural][isl]") {
  poly::IslContext isl;
  const Case cases[] = {
      {1, 1, 2, {{0, 4}, {4, 8}}},         {1, 1, 4, {{0, 2}, {2, 4}, {4, 6}, {6, 8}}},
      {2, 1, 2, {{0, 2}, {2, 4}}},         {2, 1, 4, {{0, 1}, {1, 2}, {2, 3}, {3, 4}}},
      {1, 0, 3, {{0, 2}, {2, 4}, {4, 6}}},
  };
  for (const Case &c : cases) {
    INFO("stride " << c.stride << ", pad " << c.pad << ", seq3(" << c.P << ")");
    const ir::Graph graph = conv(c.stride, c.pad);
    const ir::Program program = nas::lowerForInference(graph);
    const ir::Kernel &dense = nas::kernelOf(program, "conv");
    const poly::Scop scop = poly::buildScop(isl.get(), dense);
    const std::vector<nas::Seq3Strip> strips = nas::seq3Strips(graph, "conv", c.P);
    REQUIRE(strips.size() == c.rows.size());
    const ir::Program split =
        nas::lowerForInference(nas::applyNeuralStep(graph, {"conv", "seq3", {c.P}}));
    const std::map<std::string, ir::Shape> shapes = loweredShapes(dense, split);
    const std::vector<nas::ScopRelations> rewritten = nas::seq3Scop(dense, scop, "w", strips);
    for (size_t i = 0; i < strips.size(); ++i) {
      CHECK(strips[i].begin == c.rows[i][0]);
      CHECK(strips[i].end == c.rows[i][1]);
      CHECK(strips[i].weight == "w_strip" + std::to_string(i));
      const nas::ScopRelations expected = loweredStrip(isl.get(), split, i, c.rows[i][0]);
      INFO("strip " << i);
      test::checkSameRelations(rewritten[i], expected);
      CHECK_NOTHROW(nas::checkInsideTensors(rewritten[i], shapes));
    }
  }
}

TEST_CASE("seq3Rewrite splits the rows; neighbouring strips both read the halo",
          "[nas][neural][isl]") {
  poly::IslContext isl;
  const std::vector<nas::ScopRewrite> rewrites = nas::seq3Rewrite(isl.get(), conv(1, 1), "conv", 2);
  REQUIRE(rewrites.size() == 2);
  CHECK(rewrites[0].label == "strip 0: rows [0, 4)");
  CHECK(rewrites[1].label == "strip 1: rows [4, 8)");
  const isl::union_set dense(isl::set(
      isl.get(), "{ S1[n, k, oh, ow, c, r, s] : n = 0 and 0 <= k < 6 and 0 <= oh, ow < 8 and "
                 "0 <= c < 4 and 0 <= r, s < 3 and 1 <= oh + r <= 8 and 1 <= ow + s <= 8 }"));
  CHECK(rewrites[0].before.domain.unite(rewrites[1].before.domain).is_equal(dense));
  CHECK(rewrites[0].before.domain.intersect(rewrites[1].before.domain).is_empty());
  CHECK(rewrites[0].after.domain.is_equal(rewrites[0].before.domain));
  // Rows [0, 4) with a 3x3 window and pad 1 read input rows 0..4, rows [4, 8) read 3..7.
  const isl::union_set x(isl::set::universe(nas::tensorSpace(isl.get(), "x", 4)));
  const isl::union_set halo(
      isl::set(isl.get(), "{ x[0, c, h, w] : 0 <= c < 4 and 3 <= h <= 4 and 0 <= w < 8 }"));
  CHECK(rewrites[0]
            .after.reads.range()
            .intersect(x)
            .intersect(rewrites[1].after.reads.range())
            .is_equal(halo));
  const isl::union_set w1(isl::set::universe(nas::tensorSpace(isl.get(), "w_strip1", 4)));
  CHECK(!rewrites[1].after.reads.range().intersect(w1).is_empty());
}

TEST_CASE("seq3Scop refuses strips that do not tile the output rows", "[nas][neural][isl]") {
  poly::IslContext isl;
  const ir::Program program = nas::lowerForInference(conv(1, 1));
  const ir::Kernel &dense = nas::kernelOf(program, "conv");
  const poly::Scop scop = poly::buildScop(isl.get(), dense);
  CHECK_THROWS_WITH(nas::seq3Scop(dense, scop, "w", {{0, 4, "a"}, {5, 8, "b"}}),
                    Catch::Contains("does not start where the previous ends (4)"));
  CHECK_THROWS_WITH(nas::seq3Scop(dense, scop, "w", {{0, 4, "a"}}),
                    Catch::Contains("cover 4 output rows, not 8"));
  CHECK_THROWS_AS(nas::seq3Rewrite(isl.get(), conv(1, 1), "conv", 3), nas::RefusedTransformation);
}
