// Internal to ir/lower and the lowerings in ir/ops: small constructors of statements, accesses and
// expressions.
#pragma once

#include "ir/Kernel.h"

#include <string>
#include <vector>

namespace nasc::ir::lower {

/// A statement over the box 0 <= it_i < extents[i], no reduction dimension, Update::Assign.
Statement makeStatement(std::vector<std::string> iterators, std::vector<int64_t> extents);

/// The iterator it_i of `st` as an affine expression (times `coeff`).
AffineExpr iter(const Statement &st, size_t i, int64_t coeff = 1);

/// The constant `c` as an affine expression over `st`'s iterators.
AffineExpr constant(const Statement &st, int64_t c);

/// Access tensor[it_first, ..., it_{first+count-1}].
Access iterAccess(int tensor, const Statement &st, size_t first, size_t count);

/// Access of a tensor of shape `in` broadcast (numpy rules, right-aligned) to `out`, whose
/// dimensions are st's iterators [first, first + out.size()): a dimension of size 1 broadcast
/// along a larger one is indexed 0.
Access broadcastAccess(int tensor, const Shape &in, const Shape &out, const Statement &st,
                       size_t first = 0);

/// Load of `a`.
Expr load(Access a);
/// lhs op rhs.
Expr binary(Expr::Op op, Expr lhs, Expr rhs);

/// Iterator names of an element-wise statement over a tensor of `rank`: n, c, h, w for rank 4,
/// otherwise i0, i1, ... (prefixed by `prefix` instead of "i" when given).
std::vector<std::string> elementIterators(size_t rank, const std::string &prefix = "i");

/// The element-wise statement `out[i...] = value` over all elements of `shape`; the caller sets
/// `value` (iterators as elementIterators).
Statement elementStatement(int out, const Shape &shape);

} // namespace nasc::ir::lower
