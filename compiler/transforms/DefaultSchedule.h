// The schedule nasc uses when no schedule file names a kernel, as a trace of primitives: layout
// steps (pad_input for padded convolutions, block_channels for dense ones: NCHW[16]c with
// AVX-512, NCHW[8]c with AVX2), a register tile where the domain is a box,
// each reduction statement's reduction loops moved inside (so the innermost loop is a
// contiguous output dimension that LLVM vectorizes), then its outermost parallel loop marked.
#pragma once

#include "codegen/Target.h"
#include "compiler/transforms/ScheduleTrace.h"
#include "ir/Program.h"
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

/// Most rows of a one-vector register tile (measured on ResNet-18 with AVX-512,
/// docs/performance.md).
inline constexpr int kMaxVectorTileRows = 14;

/// The smallest channel block the default layout gives a convolution (narrower vectors are not
/// worth the relayout).
inline constexpr int kMinChannelBlock = 4;

/// The register tile the default trace gives statement `st` on a machine with `unit`, or
/// nullopt when `st` has constraints (its domain is not a box, e.g. a padded convolution before
/// pad_input), defaultLoopOrder is the identity or a load reads along its innermost dimension O
/// with a stride other than 1 element. Two shapes:
///  - O is one vector (at least kMinChannelBlock and dividing unit.lanes, e.g. k1 of a
///    block_channels conv): O whole times
///    rows of J, the innermost output dimension before O that the loads along O do not use (ow):
///    the largest divisor of J's extent up to kMaxVectorTileRows and unit.registers − 4;
///  - otherwise defaultJamDimension J (when it precedes O) by kTileRows, and O by the first of
///    kTileWidths dividing it; nullopt if J is missing or neither divides.
std::optional<RegisterTile> defaultRegisterTile(const ir::Statement &st,
                                                const codegen::VectorUnit &unit);

/// Applies the default layout steps to the kernel of program.calls[call] and returns them, in
/// order: pad_input of each zero-padded convolution statement (compiler/transforms/PadInput.h),
/// then block_channels (BlockChannels.h) of each convolution it applies to, with block the
/// vector's lanes halved until it divides K (at least kMinChannelBlock) and input block
/// defaultInputBlock.
std::vector<ScheduleStep> applyDefaultLayout(ir::Program &program, size_t call,
                                             const codegen::VectorUnit &unit);

/// The default trace of `kernel` (Scop `scop` from poly::buildScop, dependences `deps`),
/// named `node`, for a machine with `unit`: per statement in order, the defaultRegisterTile when
/// there is one (split J by rows and O by columns where the tile is narrower than the loop,
/// order (outer outputs with J0 and O0, reductions, J1, O1), unroll J1:
/// the rows x columns outputs stay in vector registers across the reduction loops); otherwise
/// interchange to defaultLoopOrder when that is legal and not the identity, and unroll-and-jam
/// of defaultJamDimension by kJamFactor (split it, move the inner part innermost, unroll it: the
/// vectorized loop then computes kJamFactor outputs per load of the shared operand); then
/// parallelize the outermost member of its band that carries no
/// dependence and has more than one iteration (poly::outermostParallelMember), if any.
/// Applying it with applyTrace gives the default schedule.
KernelSchedule defaultTrace(const poly::Scop &scop, const poly::Dependences &deps,
                            const ir::Kernel &kernel, const std::string &node,
                            const codegen::VectorUnit &unit);

} // namespace nasc::compiler
