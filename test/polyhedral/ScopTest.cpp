// Golden tests: Kernels turned into isl domains, access relations, schedules and ASTs.
#include "polyhedral/Scop.h"
#include "test/support/Kernels.h"

#include <catch2/catch.hpp>

using namespace nasc;

namespace {

/// A 1-d convolution with a 3-tap window and padding 1: O[x] += I[x + r - 1] * W[r], where the
/// padding is a domain constraint 0 <= x + r - 1 <= 4 instead of an out-of-bounds read.
ir::Kernel paddedConv1d() {
  ir::Kernel k;
  k.name = "conv1d";
  k.tensors = {{"I", {5}}, {"W", {3}}, {"O", {5}}};
  ir::Statement st;
  st.name = "S0";
  st.iterators = {"x", "r"};
  st.extents = {5, 3};
  st.reduction = {false, true};
  st.update = ir::Update::Add;
  auto in = ir::AffineExpr::iter(2, 0) + ir::AffineExpr::iter(2, 1) + (-1);
  st.constraints = {{in, false}, {ir::AffineExpr::constant_(2, 4) - in, false}};
  st.write = {2, {ir::AffineExpr::iter(2, 0)}};
  st.value = ir::Expr::binary(ir::Expr::Op::Mul, ir::Expr::load({0, {in}}),
                              ir::Expr::load({1, {ir::AffineExpr::iter(2, 1)}}));
  k.statements = {st};
  return k;
}

bool sameUnionSet(isl::ctx ctx, const isl::union_set &a, const std::string &b) {
  return a.is_equal(isl::union_set(ctx, b));
}

bool sameUnionMap(isl::ctx ctx, const isl::union_map &a, const std::string &b) {
  return a.is_equal(isl::union_map(ctx, b));
}

} // namespace

TEST_CASE("matmul Scop has box domains and the accesses of C += A*B", "[scop]") {
  poly::IslContext ctx;
  poly::Scop scop = poly::buildScop(ctx.get(), test::matmulWithInit(2, 4, 3));
  CHECK(sameUnionSet(ctx.get(), scop.domain,
                     "{ S0[i, j] : 0 <= i < 2 and 0 <= j < 4; "
                     "S1[i, j, k] : 0 <= i < 2 and 0 <= j < 4 and 0 <= k < 3 }"));
  CHECK(sameUnionMap(ctx.get(), scop.writes,
                     "{ S0[i, j] -> C[i, j] : 0 <= i < 2 and 0 <= j < 4; "
                     "S1[i, j, k] -> C[i, j] : 0 <= i < 2 and 0 <= j < 4 and 0 <= k < 3 }"));
  CHECK(sameUnionMap(ctx.get(), scop.reads,
                     "{ S1[i, j, k] -> C[i, j] : 0 <= i < 2 and 0 <= j < 4 and 0 <= k < 3; "
                     "S1[i, j, k] -> A[i, k] : 0 <= i < 2 and 0 <= j < 4 and 0 <= k < 3; "
                     "S1[i, j, k] -> B[k, j] : 0 <= i < 2 and 0 <= j < 4 and 0 <= k < 3 }"));
}

TEST_CASE("matmul AST is two loop nests in statement order", "[scop][ast]") {
  poly::IslContext ctx;
  poly::Scop scop = poly::buildScop(ctx.get(), test::matmulWithInit(2, 4, 3));
  std::string expected = "{\n"
                         "  for (int c0 = 0; c0 <= 1; c0 += 1)\n"
                         "    for (int c1 = 0; c1 <= 3; c1 += 1)\n"
                         "      S0(c0, c1);\n"
                         "  for (int c0 = 0; c0 <= 1; c0 += 1)\n"
                         "    for (int c1 = 0; c1 <= 3; c1 += 1)\n"
                         "      for (int c2 = 0; c2 <= 2; c2 += 1)\n"
                         "        S1(c0, c1, c2);\n"
                         "}\n";
  CHECK(poly::astToString(poly::generateAst(scop)) == expected);
}

TEST_CASE("padding becomes a domain constraint and clipped loop bounds", "[scop][ast]") {
  poly::IslContext ctx;
  poly::Scop scop = poly::buildScop(ctx.get(), paddedConv1d());
  CHECK(sameUnionSet(ctx.get(), scop.domain,
                     "{ S0[x, r] : 0 <= x < 5 and 0 <= r < 3 and 1 <= x + r <= 5 }"));
  CHECK(sameUnionMap(ctx.get(), scop.reads,
                     "{ S0[x, r] -> O[x] : 0 <= x < 5 and 0 <= r < 3 and 1 <= x + r <= 5; "
                     "S0[x, r] -> I[x + r - 1] : 0 <= x < 5 and 0 <= r < 3 and 1 <= x + r <= 5; "
                     "S0[x, r] -> W[r] : 0 <= x < 5 and 0 <= r < 3 and 1 <= x + r <= 5 }"));
  std::string expected = "for (int c0 = 0; c0 <= 4; c0 += 1)\n"
                         "  for (int c1 = max(0, -c0 + 1); c1 <= min(2, -c0 + 5); c1 += 1)\n"
                         "    S0(c0, c1);\n";
  CHECK(poly::astToString(poly::generateAst(scop)) == expected);
}

TEST_CASE("an access of the wrong rank is an error naming kernel, statement and tensor", "[scop]") {
  poly::IslContext ctx;
  ir::Kernel k = test::matmulWithInit(2, 4, 3);
  k.statements[1].value.args[0].access.index.pop_back();
  CHECK_THROWS_WITH(
      poly::buildScop(ctx.get(), k),
      "kernel matmul: statement S1 accesses tensor A with 1 indices, but it has rank 2");
}
