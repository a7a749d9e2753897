// Full tiles generated apart from the partial one (poly::isolateFullTiles), on hand-written isl
// schedules.
#include "polyhedral/FullTiles.h"
#include "polyhedral/Scop.h"

#include <catch2/catch.hpp>

using namespace nasc;

namespace {

/// The schedule of { S[i, j] : 0 <= i < rows and 0 <= j < 3 } as one band (floor(i / 2), j,
/// i mod 2): a tile of 2 rows of i around a loop j (like a convolution's reduction loops), its
/// member 2 unrolled.
isl::schedule rowTiles(isl::ctx ctx, int rows) {
  isl::union_set domain(ctx, "{ S[i, j] : 0 <= i < " + std::to_string(rows) + " and 0 <= j < 3 }");
  isl::multi_union_pw_aff band(
      ctx, "[{ S[i, j] -> [(floor(i/2))] }, { S[i, j] -> [(j)] }, { S[i, j] -> [(i mod 2)] }]");
  isl::schedule_node node = isl::schedule::from_domain(domain).root().child(0);
  node = node.insert_partial_schedule(band);
  node = isl::manage(
      isl_schedule_node_band_member_set_ast_loop_type(node.release(), 2, isl_ast_loop_unroll));
  return node.schedule();
}

std::string ast(const isl::schedule &schedule) {
  isl::ast_build build =
      isl::ast_build::from_context(isl::set::universe(isl::space::unit(schedule.ctx())));
  return poly::astToString(build.node_from(schedule));
}

} // namespace

TEST_CASE("full tiles of an unrolled split that does not divide are generated without guards, "
          "the partial tile after them",
          "[full-tiles][ast]") {
  poly::IslContext ctx;
  // i < 7: rows 0-5 are 3 full tiles of 2, row 6 the partial one.
  const std::string expected = "{\n"
                               "  for (int c0 = 0; c0 <= 2; c0 += 1)\n"
                               "    for (int c1 = 0; c1 <= 2; c1 += 1) {\n"
                               "      S(2 * c0, c1);\n"
                               "      S(2 * c0 + 1, c1);\n"
                               "    }\n"
                               "  for (int c1 = 0; c1 <= 2; c1 += 1)\n"
                               "    S(6, c1);\n"
                               "}\n";
  CHECK(ast(poly::isolateFullTiles(rowTiles(ctx.get(), 7))) == expected);
  // Without the option the second row of every tile is guarded inside the loop over j.
  CHECK(ast(rowTiles(ctx.get(), 7)).find("if (c0 <= 2)") != std::string::npos);
}

TEST_CASE("a split that divides leaves the schedule's AST unchanged", "[full-tiles][ast]") {
  poly::IslContext ctx;
  const std::string expected = "for (int c0 = 0; c0 <= 3; c0 += 1)\n"
                               "  for (int c1 = 0; c1 <= 2; c1 += 1) {\n"
                               "    S(2 * c0, c1);\n"
                               "    S(2 * c0 + 1, c1);\n"
                               "  }\n";
  CHECK(ast(poly::isolateFullTiles(rowTiles(ctx.get(), 8))) == expected);
  CHECK(ast(rowTiles(ctx.get(), 8)) == expected);
}

TEST_CASE("a row of vectors whose last vector is partial is one tile: each vector keeps one loop "
          "over its lanes",
          "[full-tiles][ast]") {
  poly::IslContext ctx;
  // { S[j, w] : j < 3, w < 24 } as one band (j, floor(w / 16), w mod 16), member 1 unrolled: 24
  // columns are a vector of 16 lanes and one of 8. The lanes (member 2, inside the unrolled one)
  // do not make the tile partial: the first vector keeps one loop of 16, not 8 + 8.
  isl::union_set domain(ctx.get(), "{ S[j, w] : 0 <= j < 3 and 0 <= w < 24 }");
  isl::multi_union_pw_aff band(ctx.get(), "[{ S[j, w] -> [(j)] }, { S[j, w] -> [(floor(w/16))] }, "
                                          "{ S[j, w] -> [(w mod 16)] }]");
  isl::schedule_node node = isl::schedule::from_domain(domain).root().child(0);
  node = node.insert_partial_schedule(band);
  node = isl::manage(
      isl_schedule_node_band_member_set_ast_loop_type(node.release(), 1, isl_ast_loop_unroll));
  const std::string expected = "for (int c0 = 0; c0 <= 2; c0 += 1) {\n"
                               "  for (int c2 = 0; c2 <= 15; c2 += 1)\n"
                               "    S(c0, c2);\n"
                               "  for (int c2 = 0; c2 <= 7; c2 += 1)\n"
                               "    S(c0, c2 + 16);\n"
                               "}\n";
  CHECK(ast(poly::isolateFullTiles(node.schedule())) == expected);
}
