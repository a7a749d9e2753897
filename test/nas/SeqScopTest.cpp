// seq1 / seq2 as isl rewrites of the convolution's Scop (compiler/nas/SeqScop.h): part i must give
// exactly the domain and accesses of the lowered part Conv, once its writes to Y_i go through the
// Concat's copy into the original output, and read its own weight initializer.
#include "compiler/nas/SeqScop.h"
#include "ir/passes/Passes.h"
#include "test/support/ConvGraph.h"
#include "test/support/ScopCheck.h"

#include <catch2/catch.hpp>

namespace {

using namespace nasc;

/// x (1, 8, 6, 6) -> conv (8 -> 12, 3x3, stride 2, pad 1, bias) -> y.
ir::Graph conv() { return test::prepared(test::convGraph("conv.json", {{1, 8, 6, 6}, 12, 2, 1})); }

/// The accesses of `scop`'s statement with an Add update (the convolution's reduction).
nas::ScopRelations reductionOf(const ir::Kernel &kernel, const poly::Scop &scop) {
  for (const ir::Statement &st : kernel.statements)
    if (st.update == ir::Update::Add)
      return nas::statementOnly(nas::relationsOf(scop), st.name);
  FAIL("kernel " << kernel.name << " has no reduction");
  return {};
}

/// The expected part i of `step`: the lowered part Conv's reduction, its accesses to Y_i moved
/// through the Concat into y.
std::vector<nas::ScopRelations> loweredParts(isl::ctx ctx, const nas::NeuralStep &step,
                                             size_t count) {
  const ir::Program program = nas::lowerForInference(nas::applyNeuralStep(conv(), step));
  // The Concat's copies Y_i[n, k, ...] -> O[n, off_i + k, ...].
  const isl::union_map copy =
      nas::copySources(
          nas::relationsOf(poly::buildScop(ctx, nas::kernelOf(program, "conv_concat"))))
          .reverse();
  std::vector<nas::ScopRelations> parts;
  for (size_t i = 0; i < count; ++i) {
    const ir::Kernel &kernel = nas::kernelOf(program, "conv_part" + std::to_string(i));
    const nas::ScopRelations part = reductionOf(kernel, poly::buildScop(ctx, kernel));
    parts.push_back(
        {part.domain, nas::throughCopy(part.reads, copy), nas::throughCopy(part.writes, copy)});
  }
  return parts;
}

/// Shapes of the dense kernel's tensors and of the parts' weights, as lowering declares them.
std::map<std::string, ir::Shape> loweredShapes(const ir::Kernel &dense,
                                               const nas::NeuralStep &step) {
  std::map<std::string, ir::Shape> shapes = nas::tensorShapes(dense);
  for (const ir::KernelCall &call :
       nas::lowerForInference(nas::applyNeuralStep(conv(), step)).calls)
    shapes.merge(nas::tensorShapes(call.kernel));
  return shapes;
}

struct Case {
  nas::NeuralStep step;
  std::vector<nas::SeqPart> parts; ///< By hand: [off_i, off_i + K_i), G_i, W_i.
};

} // namespace

TEST_CASE("seqScop equals the lowered parts composed with the Concat", "[nas][neural][isl]") {
  poly::IslContext isl;
  const ir::Program program = nas::lowerForInference(conv());
  const ir::Kernel &dense = nas::kernelOf(program, "conv");
  const poly::Scop scop = poly::buildScop(isl.get(), dense);
  const Case cases[] = {
      {{"conv", "seq1", {1, 2, 4}},
       {{{0, 4, 1}, "w_part0"}, {{4, 4, 2}, "w_part1"}, {{8, 4, 4}, "w_part2"}}},
      {{"conv", "seq1", {2, 1}}, {{{0, 6, 2}, "w_part0"}, {{6, 6, 1}, "w_part1"}}},
      {{"conv", "seq2", {4, 4}}, {{{0, 4, 1}, "w_part0"}, {{4, 8, 4}, "w_part1"}}},
      {{"conv", "seq2", {6, 2}}, {{{0, 6, 1}, "w_part0"}, {{6, 6, 2}, "w_part1"}}},
  };
  for (const Case &c : cases) {
    INFO(c.step.toString());
    const std::vector<nas::ScopRelations> rewritten = nas::seqScop(dense, scop, "w", c.parts);
    const std::vector<nas::ScopRelations> expected =
        loweredParts(isl.get(), c.step, c.parts.size());
    const std::map<std::string, ir::Shape> shapes = loweredShapes(dense, c.step);
    REQUIRE(rewritten.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      INFO("part " << i);
      test::checkSameRelations(rewritten[i], expected[i]);
      CHECK_NOTHROW(nas::checkInsideTensors(rewritten[i], shapes));
    }
    const std::vector<nas::SeqPart> found = nas::seqParts(conv(), c.step);
    REQUIRE(found.size() == c.parts.size());
    for (size_t i = 0; i < found.size(); ++i) {
      CHECK(found[i].channels.offset == c.parts[i].channels.offset);
      CHECK(found[i].channels.count == c.parts[i].channels.count);
      CHECK(found[i].channels.groups == c.parts[i].channels.groups);
      CHECK(found[i].weight == c.parts[i].weight);
    }
  }
}

TEST_CASE("seqRewrite splits the dense reduction at the part boundaries", "[nas][neural][isl]") {
  poly::IslContext isl;
  const std::vector<nas::ScopRewrite> rewrites =
      nas::seqRewrite(isl.get(), conv(), {"conv", "seq2", {4, 4}});
  REQUIRE(rewrites.size() == 2);
  CHECK(rewrites[0].label == "part 0: channels [0, 4), group 1");
  CHECK(rewrites[1].label == "part 1: channels [4, 12), group 4");
  const isl::union_set dense(isl::set(
      isl.get(), "{ S1[n, k, oh, ow, c, r, s] : n = 0 and 0 <= k < 12 and 0 <= oh, ow < 3 and "
                 "0 <= c < 8 and 0 <= r, s < 3 and 1 <= 2oh + r <= 6 and 1 <= 2ow + s <= 6 }"));
  CHECK(rewrites[0].before.domain.unite(rewrites[1].before.domain).is_equal(dense));
  CHECK(rewrites[0].before.domain.intersect(rewrites[1].before.domain).is_empty());
}

TEST_CASE("seqScop refuses parts that do not tile the output channels", "[nas][neural][isl]") {
  poly::IslContext isl;
  const ir::Program program = nas::lowerForInference(conv());
  const ir::Kernel &dense = nas::kernelOf(program, "conv");
  const poly::Scop scop = poly::buildScop(isl.get(), dense);
  CHECK_THROWS_WITH(nas::seqScop(dense, scop, "w", {{{0, 4, 1}, "a"}, {{6, 6, 1}, "b"}}),
                    Catch::Contains("does not start where the previous ends (4)"));
  CHECK_THROWS_WITH(nas::seqScop(dense, scop, "w", {{{0, 4, 1}, "a"}}),
                    Catch::Contains("cover 4 output channels, not K = 12"));
  CHECK_THROWS_WITH(nas::seqScop(dense, scop, "w", {{{0, 6, 3}, "a"}, {{6, 6, 1}, "b"}}),
                    Catch::Contains("group(3)"));
}
