// A Kernel as a static control part (Scop) in isl: iteration domains, access relations and
// an initial schedule; and the isl AST generated from it.
#pragma once

#include "ir/Kernel.h"

#include <isl/cpp.h>

#include <string>

namespace nasc::poly {

/// Owns an isl_ctx for the lifetime of a compilation. isl errors become C++ exceptions
/// (isl::exception); the number of isl operations is bounded (`maxOperations`, 0 = unbounded)
/// so that a pathological input fails instead of hanging (isl_ctx_set_max_operations).
class IslContext {
public:
  explicit IslContext(unsigned long maxOperations = 50'000'000);
  ~IslContext();
  IslContext(const IslContext &) = delete;
  IslContext &operator=(const IslContext &) = delete;
  isl::ctx get() const { return isl::ctx(ctx_); }

private:
  isl_ctx *ctx_;
};

/// The polyhedral form of one Kernel.
/// - `domain`: one set per statement, named after Statement::name, dims named after its
///   iterators: { S1[n, k, oh, ow, c, r, s] : 0 <= n < N and ... and padding constraints }.
/// - `reads` / `writes`: access relations { S1[...] -> I[...] } to tensors named after
///   TensorDecl::name; an Add/Max update also reads the element it writes.
/// - `schedule`: the initial schedule tree: a sequence over the statements in program order,
///   each with one band holding its iterators in order (outermost first).
struct Scop {
  isl::union_set domain;
  isl::union_map reads;
  isl::union_map writes;
  isl::schedule schedule;
};

/// Builds the Scop of `kernel` in `ctx` through isl's API (no string parsing).
/// Throws nasc::Error if an access has the wrong rank for its tensor.
Scop buildScop(isl::ctx ctx, const ir::Kernel &kernel);

/// Generates the isl AST of `scop.schedule` with isl::ast_build. Each statement instance
/// appears as a user node whose expression is the call `Sname(e_0, ..., e_{d-1})`, the e_i
/// being the values of the statement's iterators in terms of the AST's loop iterators.
/// Full tiles of unrolled loops are generated apart from partial ones (isolateFullTiles).
/// Throws nasc::Error as requireMarkedLoops if a "parallel" mark is over a loop isl would drop,
/// so that the mark never falls on the loop below it.
isl::ast_node generateAst(const Scop &scop);

/// The AST as C-like text (isl's printer), for golden tests and `inspect --stage ast`.
std::string astToString(const isl::ast_node &ast);

} // namespace nasc::poly
