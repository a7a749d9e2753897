// Small hand-built Kernels and isl printing helpers shared by the polyhedral and schedule tests.
#pragma once

#include "ir/Kernel.h"
#include "polyhedral/Scop.h"

#include <sstream>
#include <string>

namespace nasc::test {

inline ir::AffineExpr it(size_t depth, size_t i) { return ir::AffineExpr::iter(depth, i); }

/// C[i, j] = 0 (S0), then C[i, j] += A[i, k] * B[k, j] (S1, k a reduction dimension), with
/// A m×k, B k×n, C m×n.
inline ir::Kernel matmulWithInit(int64_t m, int64_t n, int64_t k) {
  ir::Kernel kernel;
  kernel.name = "matmul";
  kernel.tensors = {{"A", {m, k}}, {"B", {k, n}}, {"C", {m, n}}};
  ir::Statement init;
  init.name = "S0";
  init.iterators = {"i", "j"};
  init.extents = {m, n};
  init.reduction = {false, false};
  init.write = {2, {it(2, 0), it(2, 1)}};
  init.value = ir::Expr::constant(0.0f);
  ir::Statement acc;
  acc.name = "S1";
  acc.iterators = {"i", "j", "k"};
  acc.extents = {m, n, k};
  acc.reduction = {false, false, true};
  acc.update = ir::Update::Add;
  acc.write = {2, {it(3, 0), it(3, 1)}};
  acc.value = ir::Expr::binary(ir::Expr::Op::Mul, ir::Expr::load({0, {it(3, 0), it(3, 2)}}),
                               ir::Expr::load({1, {it(3, 2), it(3, 1)}}));
  kernel.statements = {init, acc};
  return kernel;
}

/// S[i, j]: A[i][j] = A[i - 1][j + 1] + A[i - 1][j] for 1 <= i < n, 0 <= j < n - 1 (A is n x n):
/// dependences (1, -1) and (1, 0).
inline ir::Kernel stencil2d(int64_t n = 4) {
  ir::Kernel kernel;
  kernel.name = "stencil";
  kernel.tensors = {{"A", {n, n}}};
  ir::Statement st;
  st.name = "S";
  st.iterators = {"i", "j"};
  st.extents = {n, n - 1};
  st.constraints = {{it(2, 0) + (-1), false}};
  st.reduction = {false, false};
  st.write = {0, {it(2, 0), it(2, 1)}};
  st.value =
      ir::Expr::binary(ir::Expr::Op::Add, ir::Expr::load({0, {it(2, 0) + (-1), it(2, 1) + 1}}),
                       ir::Expr::load({0, {it(2, 0) + (-1), it(2, 1)}}));
  kernel.statements = {st};
  return kernel;
}

/// isl's text of a schedule tree.
inline std::string scheduleText(const isl::schedule &schedule) {
  std::ostringstream out;
  out << schedule;
  return out.str();
}

/// The AST that `schedule` generates for `scop`'s statements, as C-like text.
inline std::string astText(const poly::Scop &scop, const isl::schedule &schedule) {
  poly::Scop copy = scop;
  copy.schedule = schedule;
  return poly::astToString(poly::generateAst(copy));
}

} // namespace nasc::test
