// The isl forms of group(G) and bottleneck(B) (compiler/nas/GroupScop.h, BottleneckScop.h)
// against iteration domains and access relations written out by hand from the definitions of
// Turner et al. (ASPLOS 2021, §4.2), not against nasc's own lowering.
#include "compiler/nas/BottleneckScop.h"
#include "compiler/nas/GroupScop.h"
#include "test/support/ConvGraph.h"
#include "test/support/ScopCheck.h"

#include <catch2/catch.hpp>

namespace {

using namespace nasc;

/// Statement `point` (e.g. "S1[n, k, oh, ow, c, r, s]") over `constraints`, reading the tensor
/// elements `reads` and writing `write` (e.g. "x[n, c, oh + r - 1, ow + s - 1]"), parsed by isl.
nas::ScopRelations statement(isl::ctx ctx, const std::string &point, const std::string &constraints,
                             const std::vector<std::string> &reads, const std::string &write) {
  auto access = [&](const std::string &element) {
    return point + " -> " + element + " : " + constraints;
  };
  std::string readText;
  for (const std::string &element : reads)
    readText += (readText.empty() ? "" : "; ") + access(element);
  return {isl::union_set(ctx, "{ " + point + " : " + constraints + " }"),
          isl::union_map(ctx, "{ " + readText + " }"),
          isl::union_map(ctx, "{ " + access(write) + " }")};
}

/// x (1, 4, 5, 5) -> Conv 4 -> 4, 3x3, pad 1, stride 1, bias -> y (1, 4, 5, 5).
ir::Graph conv4() { return test::prepared(test::convGraph("conv.json", {{1, 4, 5, 5}, 4})); }

/// x (1, 4, 3, 3) -> Conv "conv" 4 -> 4, 3x3, pad 1 -> c -> Relu -> r -> Conv "conv2" 4 -> 2,
/// 1x1, W "w2" -> y (1, 2, 3, 3).
ir::Graph producerConsumer() {
  ir::Graph g = test::convGraph("two.json", {{1, 4, 3, 3}, 4}, "c");
  g.initializers["w2"] = test::uniformTensor({2, 4, 1, 1}, 7, 0.3f);
  g.nodes.push_back({"relu", "Relu", {"c"}, {"r"}, {}});
  g.nodes.push_back({"conv2", "Conv", {"r", "w2"}, {"y"}, {}});
  return test::prepared(g);
}

} // namespace

TEST_CASE("group(2) isl form: hand-written domain and accesses of the grouped convolution",
          "[nas][neural][isl]") {
  poly::IslContext isl;
  const nas::ScopRewrite rewrite = nas::groupRewrite(isl.get(), conv4(), "conv", 2);
  // Dense: padding 1 keeps 0 <= oh + r - 1 < 5 and 0 <= ow + s - 1 < 5 in the domain.
  test::checkSameRelations(
      rewrite.before,
      statement(isl.get(), "S1[n, k, oh, ow, c, r, s]",
                "n = 0 and 0 <= k < 4 and 0 <= oh < 5 and 0 <= ow < 5 and 0 <= c < 4 and 0 <= r "
                "< 3 and 0 <= s < 3 and 0 <= oh + r - 1 < 5 and 0 <= ow + s - 1 < 5",
                {"x[n, c, oh + r - 1, ow + s - 1]", "w[k, c, r, s]", "y[n, k, oh, ow]"},
                "y[n, k, oh, ow]"));
  // Grouped, K/G = C/G = 2: k = 2g + k', c = 2g + c', W' (4, 2, 3, 3) read at [2g + k', c', r, s].
  test::checkSameRelations(
      rewrite.after,
      statement(isl.get(), "S1[n, g, kg, oh, ow, cg, r, s]",
                "n = 0 and 0 <= g < 2 and 0 <= kg < 2 and 0 <= oh < 5 and 0 <= ow < 5 and 0 <= "
                "cg < 2 and 0 <= r < 3 and 0 <= s < 3 and 0 <= oh + r - 1 < 5 and 0 <= ow + s - "
                "1 < 5",
                {"x[n, 2g + cg, oh + r - 1, ow + s - 1]", "w[2g + kg, cg, r, s]",
                 "y[n, 2g + kg, oh, ow]"},
                "y[n, 2g + kg, oh, ow]"));
}

TEST_CASE("bottleneck(2) isl form: hand-written domains of the producer and its consumer",
          "[nas][neural][isl]") {
  poly::IslContext isl;
  const std::vector<nas::ScopRewrite> rewrites =
      nas::bottleneckRewrite(isl.get(), producerConsumer(), "conv", 2);
  REQUIRE(rewrites.size() == 2);
  CHECK(rewrites[0].label == "producer conv");
  CHECK(rewrites[1].label == "consumer conv2");
  // Producer: k < K/B = 2, accesses unchanged (its output, W and B shrink to 2 channels).
  test::checkSameRelations(
      rewrites[0].after,
      statement(isl.get(), "S1[n, k, oh, ow, c, r, s]",
                "n = 0 and 0 <= k < 2 and 0 <= oh < 3 and 0 <= ow < 3 and 0 <= c < 4 and 0 <= r "
                "< 3 and 0 <= s < 3 and 0 <= oh + r - 1 < 3 and 0 <= ow + s - 1 < 3",
                {"x[n, c, oh + r - 1, ow + s - 1]", "w[k, c, r, s]", "r[n, k, oh, ow]"},
                "r[n, k, oh, ow]"));
  // Consumer (1x1, no padding): c < K/B = 2, so it reads channels [0, 2) of r and of w2 only.
  test::checkSameRelations(
      rewrites[1].after,
      statement(isl.get(), "S1[n, k, oh, ow, c, r, s]",
                "n = 0 and 0 <= k < 2 and 0 <= oh < 3 and 0 <= ow < 3 and 0 <= c < 2 and r = 0 "
                "and s = 0",
                {"r[n, c, oh, ow]", "w2[k, c, r, s]", "y[n, k, oh, ow]"}, "y[n, k, oh, ow]"));
}

TEST_CASE("findReduction finds the convolution by the kernel's reduction marking, not by names",
          "[nas][neural][isl]") {
  ir::Kernel kernel = nas::kernelOf(nas::lowerForInference(conv4()), "conv");
  for (ir::Statement &st : kernel.statements)
    for (size_t i = 0; i < st.iterators.size(); ++i)
      st.iterators[i] = "i" + std::to_string(i);
  const nas::Reduction r = nas::findReduction(kernel);
  CHECK(r.statement->name == "S1");
  CHECK(r.k == 1);
  CHECK(r.c == 4);
  CHECK(r.K() == 4);
  CHECK(r.C() == 4);
  for (ir::Statement &st : kernel.statements)
    st.reduction.assign(st.reduction.size(), false);
  CHECK_THROWS_WITH(nas::findReduction(kernel),
                    Catch::Contains("has no dense convolution statement") &&
                        Catch::Contains("with c a reduction iterator"));
}
