// The schedule nasc uses when no schedule file names a kernel, as a trace of primitives: a
// layout step (pad_input) for padded convolutions, a register tile where the domain is a box,
// each reduction statement's reduction loops moved inside (so the innermost loop is a
// contiguous output dimension that LLVM vectorizes), then its outermost parallel loop marked.
#pragma once

#include "compiler/transforms/ScheduleTrace.h"
#include "ir/Kernel.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <optional>
#include <string>
#include <vector>

namespace nasc::compiler {

/// The loop order the default trace gives statement `st`, as an interchange order (new member
/// i is iterator order[i]): for an Add/Max update with reduction dimensions, the reduction
/// dimensions (in their order) moved before the innermost non-reduction dimension, e.g.
/// conv (n, k, oh, ow, c, r, s) -> (n, k, oh, c, r, s, ow); otherwise the identity.
std::vector<int> defaultLoopOrder(const ir::Statement &st);

/// Unroll-and-jam factor of the default trace (measured on ResNet-18's 3x3 convolutions with
/// AVX-512: 4 beat 8 and 16, docs/performance.md).
inline constexpr int kJamFactor = 4;

/// The dimension the default trace unrolls and jams into the innermost (vectorized) loop of
/// statement `st`: among the non-reduction dimensions other than the innermost one of
/// defaultLoopOrder, with at least 2 iterations, one that no load indexed by the innermost
/// dimension uses (so those loads are shared by the jammed copies), the one with the largest
/// extent; e.g. k of a convolution (the input row I[n, c, oh + r, ow + s] is loaded once for
/// kJamFactor output channels), i of a matrix product C[i, j] += A[i, k] B[k, j]. nullopt if
/// defaultLoopOrder is the identity or there is no such dimension.
std::optional<size_t> defaultJamDimension(const ir::Statement &st);

/// Rows (of defaultJamDimension, e.g. output channels) of the default register tile: 8 (measured
/// against 4 on ResNet 3x3 convolutions with AVX-512, docs/performance.md).
inline constexpr int kTileRows = 8;

/// Widths (of the innermost output dimension, e.g. ow) the default register tile tries, in
/// order; the first that divides the extent is taken (a partial tile is slow,
/// docs/performance.md).
inline const std::vector<int> kTileWidths = {28, 16, 14, 8};

/// A register tile: `rows` iterations of dimension `jam` times `columns` of dimension `width`.
struct RegisterTile {
  size_t jam = 0, width = 0;
  int rows = 0, columns = 0;
};

/// The register tile the default trace gives statement `st`: defaultJamDimension J (when it
/// precedes the innermost dimension O of defaultLoopOrder) by kTileRows, and O by the first of
/// kTileWidths dividing it. nullopt when `st` has constraints (its domain is not a box, e.g. a
/// padded convolution before pad_input), has no J, a load reads along O with a stride other than
/// 1 element (a strided convolution), or neither extent divides.
std::optional<RegisterTile> defaultRegisterTile(const ir::Statement &st);

/// The layout steps of the default trace of `kernel`: pad_input of each zero-padded convolution
/// statement (compiler/transforms/PadInput.h), applied before its Scop is built.
std::vector<ScheduleStep> defaultLayoutSteps(const ir::Kernel &kernel);

/// The default trace of `kernel` (Scop `scop` from poly::buildScop, dependences `deps`),
/// named `node`: per statement in order, the defaultRegisterTile when there is one (split J by
/// rows and O by columns, order (outer outputs with J0 and O0, reductions, J1, O1), unroll J1:
/// the rows x columns outputs stay in vector registers across the reduction loops); otherwise
/// interchange to defaultLoopOrder when that is legal and not the identity, and unroll-and-jam
/// of defaultJamDimension by kJamFactor (split it, move the inner part innermost, unroll it: the
/// vectorized loop then computes kJamFactor outputs per load of the shared operand); then
/// parallelize the outermost member of its band that carries no
/// dependence and has more than one iteration (poly::outermostParallelMember), if any.
/// Applying it with applyTrace gives the default schedule.
KernelSchedule defaultTrace(const poly::Scop &scop, const poly::Dependences &deps,
                            const ir::Kernel &kernel, const std::string &node);

} // namespace nasc::compiler
