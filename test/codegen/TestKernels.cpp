#include "TestKernels.h"

#include "CodegenTestSupport.h"

#include <limits>

namespace nasc::test {

namespace {

ir::Access access(int tensor, std::vector<ir::AffineExpr> index) {
  ir::Access a;
  a.tensor = tensor;
  a.index = std::move(index);
  return a;
}

ir::Expr mul(ir::Access lhs, ir::Access rhs) {
  return ir::Expr::binary(ir::Expr::Op::Mul, ir::Expr::load(std::move(lhs)),
                          ir::Expr::load(std::move(rhs)));
}

} // namespace

ir::Kernel gemmAccumulate(int64_t m, int64_t n, int64_t k, bool reductionOutside) {
  ir::Kernel kernel;
  kernel.name = reductionOutside ? "gemm_ikj" : "gemm_ijk";
  kernel.tensors = {{"A", {m, k}}, {"B", {k, n}}, {"C", {m, n}}};
  size_t i = 0, j = reductionOutside ? 2 : 1, r = reductionOutside ? 1 : 2;
  std::vector<std::string> names(3);
  std::vector<int64_t> extents(3);
  names[i] = "i", names[j] = "j", names[r] = "k";
  extents[i] = m, extents[j] = n, extents[r] = k;
  ir::Statement st =
      statement("S0", names, extents, access(2, {it(3, i), it(3, j)}), ir::Update::Add,
                mul(access(0, {it(3, i), it(3, r)}), access(1, {it(3, r), it(3, j)})));
  st.reduction[r] = true;
  kernel.statements = {st};
  return kernel;
}

ir::Kernel gemmWithInit(int64_t m, int64_t n, int64_t k) {
  ir::Kernel kernel = gemmAccumulate(m, n, k, false);
  kernel.name = "gemm_init";
  kernel.statements[0].name = "S1";
  ir::Statement init = statement("S0", {"i", "j"}, {m, n}, access(2, {it(2, 0), it(2, 1)}),
                                 ir::Update::Assign, ir::Expr::constant(0.0f));
  kernel.statements.insert(kernel.statements.begin(), init);
  return kernel;
}

ir::Kernel conv2dBias(const ConvShape &sh, bool spatialInnermost) {
  ir::Kernel kernel;
  kernel.name = spatialInnermost ? "conv_spatial_inner" : "conv";
  kernel.tensors = {{"I", {sh.n, sh.c, sh.h, sh.w}},
                    {"W", {sh.k, sh.c, sh.r, sh.s}},
                    {"B", {sh.k}},
                    {"O", {sh.n, sh.k, sh.oh(), sh.ow()}}};
  ir::Statement init = statement("S0", {"n", "k", "oh", "ow"}, {sh.n, sh.k, sh.oh(), sh.ow()},
                                 access(3, {it(4, 0), it(4, 1), it(4, 2), it(4, 3)}),
                                 ir::Update::Assign, ir::Expr::load(access(2, {it(4, 1)})));
  enum { N, K, OH, OW, C, R, S };
  std::vector<size_t> pos = spatialInnermost ? std::vector<size_t>{0, 1, 5, 6, 2, 3, 4}
                                             : std::vector<size_t>{0, 1, 2, 3, 4, 5, 6};
  std::vector<std::string> names(7);
  std::vector<int64_t> extents(7);
  const char *dimNames[] = {"n", "k", "oh", "ow", "c", "r", "s"};
  int64_t dimExtents[] = {sh.n, sh.k, sh.oh(), sh.ow(), sh.c, sh.r, sh.s};
  for (size_t d = 0; d < 7; ++d) {
    names[pos[d]] = dimNames[d];
    extents[pos[d]] = dimExtents[d];
  }
  auto x = [&](int d) { return it(7, pos[d]); };
  ir::AffineExpr ih = x(OH) * sh.stride + x(R) + (-sh.pad);
  ir::AffineExpr iw = x(OW) * sh.stride + x(S) + (-sh.pad);
  ir::Statement acc =
      statement("S1", names, extents, access(3, {x(N), x(K), x(OH), x(OW)}), ir::Update::Add,
                mul(access(0, {x(N), x(C), ih, iw}), access(1, {x(K), x(C), x(R), x(S)})));
  acc.constraints = {
      {ih, false}, {cst(7, sh.h - 1) - ih, false}, {iw, false}, {cst(7, sh.w - 1) - iw, false}};
  for (int d : {C, R, S})
    acc.reduction[pos[d]] = true;
  kernel.statements = {init, acc};
  return kernel;
}

ir::Kernel globalMaxPool(int64_t n, int64_t c, int64_t h, int64_t w) {
  ir::Kernel kernel;
  kernel.name = "global_max_pool";
  kernel.tensors = {{"X", {n, c, h, w}}, {"Y", {n, c}}};
  ir::Statement init =
      statement("S0", {"n", "c"}, {n, c}, access(1, {it(2, 0), it(2, 1)}), ir::Update::Assign,
                ir::Expr::constant(-std::numeric_limits<float>::infinity()));
  ir::Statement reduce = statement(
      "S1", {"n", "c", "h", "w"}, {n, c, h, w}, access(1, {it(4, 0), it(4, 1)}), ir::Update::Max,
      ir::Expr::load(access(0, {it(4, 0), it(4, 1), it(4, 2), it(4, 3)})));
  reduce.reduction[2] = reduce.reduction[3] = true;
  kernel.statements = {init, reduce};
  return kernel;
}

} // namespace nasc::test
