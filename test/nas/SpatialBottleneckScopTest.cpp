// spatial_bottleneck(S) as an isl rewrite (compiler/nas/SpatialBottleneckScop.h): the strided
// reduction must equal the lowered strided Conv's, and the expansion statement must copy the
// elements that the lowered Resize copies (compared as maps from each written element to the
// element it reads, which removes the Resize's source iterator).
#include "compiler/nas/SpatialBottleneckScop.h"
#include "compiler/nas/NeuralStep.h"
#include "ir/passes/Passes.h"
#include "test/support/ConvGraph.h"
#include "test/support/ScopCheck.h"

#include <catch2/catch.hpp>

namespace {

using namespace nasc;

/// x (1, 4, 8, 8) -> conv (4 -> 6, 3x3, pads 1, `stride`, bias) -> `tail` -> y, `tail` being
/// "bn_relu" (BatchNormalization then Relu, which lowering folds and fuses into the conv's
/// kernel) or "relu_bn" (the Relu fused, the BatchNormalization after it a kernel of its own, so
/// the conv's kernel writes the Relu's output and the Resize reads the BatchNormalization's).
ir::Graph convNet(int64_t stride, const std::string &tail) {
  ir::Graph g = test::convGraph("spatial.json", {{1, 4, 8, 8}, 6, stride, 1}, "c");
  if (tail == "bn_relu") {
    test::addBatchNorm(g, "c", "n", 6);
    g.nodes.push_back({"relu", "Relu", {"n"}, {"y"}, {}});
  } else {
    g.nodes.push_back({"relu", "Relu", {"c"}, {"r"}, {}});
    test::addBatchNorm(g, "r", "y", 6);
  }
  return test::prepared(std::move(g));
}

nas::ScopRelations reductionOf(isl::ctx ctx, const ir::Kernel &kernel) {
  return nas::statementOnly(nas::relationsOf(poly::buildScop(ctx, kernel)),
                            nas::findReduction(kernel).statement->name);
}

} // namespace

TEST_CASE("spatialBottleneckRewrite equals the lowered strided Conv and Resize",
          "[nas][neural][isl]") {
  poly::IslContext isl;
  for (const std::string tail : {"bn_relu", "relu_bn"})
    for (int64_t stride : {1, 2}) {
      INFO(tail << ", stride " << stride);
      const ir::Graph graph = convNet(stride, tail);
      const std::vector<nas::ScopRewrite> rewrites =
          nas::spatialBottleneckRewrite(isl.get(), graph, "conv", 2);
      REQUIRE(rewrites.size() == 2);
      CHECK(rewrites[0].label == "strided conv");
      CHECK(rewrites[1].label == "expansion conv_expand");
      const ir::Program before = nas::lowerForInference(graph);
      const ir::Program after =
          nas::lowerForInference(nas::applyNeuralStep(graph, {"conv", "spatial_bottleneck", {2}}));
      const ir::Kernel &strided = nas::kernelOf(after, "conv");
      test::checkSameRelations(rewrites[0].before,
                               reductionOf(isl.get(), nas::kernelOf(before, "conv")));
      test::checkSameRelations(rewrites[0].after, reductionOf(isl.get(), strided));
      const std::string written = tail == "bn_relu" ? "y_strided" : "r";
      CHECK(rewrites[0].after.writes.range().is_subset(
          isl::union_set(isl::set::universe(nas::tensorSpace(isl.get(), written, 4)))));
      CHECK_NOTHROW(nas::checkInsideTensors(rewrites[0].after, nas::tensorShapes(strided)));
      const ir::Kernel &resize = nas::kernelOf(after, "conv_expand");
      const nas::ScopRelations copy = nas::relationsOf(poly::buildScop(isl.get(), resize));
      const nas::ScopRelations &expansion = rewrites[1].after;
      INFO("expansion " << nas::copySources(expansion) << "\nResize " << nas::copySources(copy));
      CHECK(rewrites[1].before.domain.is_empty());
      CHECK(nas::copySources(expansion).is_equal(nas::copySources(copy)));
      CHECK(expansion.writes.range().is_equal(copy.writes.range()));
      CHECK_NOTHROW(nas::checkInsideTensors(expansion, nas::tensorShapes(resize)));
    }
}

TEST_CASE("stridedScop and expansionScop by hand", "[nas][neural][isl]") {
  poly::IslContext isl;
  const ir::Graph graph = convNet(1, "relu_bn");
  const ir::Kernel kernel = nas::kernelOf(nas::lowerForInference(graph), "conv");
  const nas::Reduction r = nas::findReduction(kernel);
  const nas::ScopRelations strided =
      nas::stridedScop(reductionOf(isl.get(), kernel), r, 2, "r", "r_s");
  // Stride 1, pad 1 on 8 rows: 0 <= oh + r − 1 <= 7 with oh = 2·oh', oh' < 4.
  const isl::union_set domain(isl::set(
      isl.get(), "{ S1[n, k, oh, ow, c, r, s] : n = 0 and 0 <= k < 6 and 0 <= oh, ow < 4 and "
                 "0 <= c < 4 and 0 <= r, s < 3 and 1 <= 2oh + r <= 8 and 1 <= 2ow + s <= 8 }"));
  CHECK(strided.domain.is_equal(domain));
  const isl::union_map writes(
      isl::map(isl.get(), "{ S1[n, k, oh, ow, c, r, s] -> r_s[n, k, oh, ow] }"));
  CHECK(strided.writes.is_equal(writes.intersect_domain(domain)));
  const isl::union_map input(
      isl::map(isl.get(), "{ S1[n, k, oh, ow, c, r, s] -> x[n, c, 2oh + r - 1, 2ow + s - 1] }"));
  CHECK(strided.reads.intersect_range(input.range()).is_equal(input.intersect_domain(domain)));
  const nas::ScopRelations expansion =
      nas::expansionScop(isl.get(), "E", {1, 6, 8, 8}, 2, "y_s", "y");
  const isl::union_map nearest(isl::map(
      isl.get(), "{ y[n, k, h, w] -> y_s[n, k, a, b] : n = 0 and 0 <= k < 6 and 0 <= h, w < 8 "
                 "and 2a <= h <= 2a + 1 and 2b <= w <= 2b + 1 }"));
  CHECK(nas::copySources(expansion).is_equal(nearest));
  CHECK_THROWS_WITH(nas::stridedScop(reductionOf(isl.get(), kernel), r, 3, "r", "r_s"),
                    Catch::Contains("S = 3 does not divide the output extent 8"));
}

TEST_CASE("spatialBottleneckRewrite refuses what the graph change refuses", "[nas][neural][isl]") {
  poly::IslContext isl;
  CHECK_THROWS_AS(nas::spatialBottleneckRewrite(isl.get(), convNet(1, "bn_relu"), "conv", 3),
                  nas::RefusedTransformation);
  CHECK_THROWS_AS(nas::spatialBottleneckRewrite(isl.get(), convNet(2, "bn_relu"), "conv", 8),
                  nas::RefusedTransformation);
}
