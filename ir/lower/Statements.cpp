#include "ir/lower/Statements.h"

namespace nasc::ir::lower {

Statement makeStatement(std::vector<std::string> iterators, std::vector<int64_t> extents) {
  Statement st;
  st.iterators = std::move(iterators);
  st.extents = std::move(extents);
  st.reduction.assign(st.iterators.size(), false);
  return st;
}

AffineExpr iter(const Statement &st, size_t i, int64_t coeff) {
  return AffineExpr::iter(st.depth(), i, coeff);
}

AffineExpr constant(const Statement &st, int64_t c) { return AffineExpr::constant_(st.depth(), c); }

Access iterAccess(int tensor, const Statement &st, size_t first, size_t count) {
  Access a{tensor, {}};
  for (size_t d = 0; d < count; ++d)
    a.index.push_back(iter(st, first + d));
  return a;
}

Access broadcastAccess(int tensor, const Shape &in, const Shape &out, const Statement &st,
                       size_t first) {
  Access a{tensor, {}};
  size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) {
    bool broadcast = in[d] == 1 && out[lead + d] != 1;
    a.index.push_back(broadcast ? constant(st, 0) : iter(st, first + lead + d));
  }
  return a;
}

Expr load(Access a) { return Expr::load(std::move(a)); }

Expr binary(Expr::Op op, Expr lhs, Expr rhs) {
  return Expr::binary(op, std::move(lhs), std::move(rhs));
}

std::vector<std::string> elementIterators(size_t rank, const std::string &prefix) {
  if (rank == 4 && prefix == "i")
    return {"n", "c", "h", "w"};
  std::vector<std::string> names;
  for (size_t d = 0; d < rank; ++d)
    names.push_back(prefix + std::to_string(d));
  return names;
}

Statement elementStatement(int out, const Shape &shape) {
  Statement st = makeStatement(elementIterators(shape.size()), shape);
  st.write = iterAccess(out, st, 0, shape.size());
  return st;
}

} // namespace nasc::ir::lower
