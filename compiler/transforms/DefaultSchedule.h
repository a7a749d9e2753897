// The schedule nasc uses when no schedule file names a kernel, as a trace of primitives: layout
// steps (pad_input for padded convolutions, block_channels for dense, grouped and depthwise
// ones, the block sized from the target's vector unit), a register tile where the domain is a
// box, each reduction statement's reduction loops moved inside (so the innermost loop is a
// contiguous output dimension that LLVM vectorizes), then its outermost parallel loop marked.
#pragma once

#include "codegen/Target.h"
#include "compiler/transforms/ScheduleTrace.h"
#include "ir/Kernel.h"
#include "ir/Program.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <optional>
#include <string>
#include <vector>

namespace nasc::compiler {

/// Choices the default trace otherwise makes by itself, made by the caller instead: the schedule
/// part of nasc search's space (docs/search.md) and the `default_trace` step of a schedule file
/// (docs/schedules.md). 0 leaves a choice to the default trace; a choice that does not apply to a
/// statement (a block block_channels refuses, a jam that does not divide the dimension) is the
/// default trace's own there.
struct TraceChoices {
  /// The block_channels block of each convolution, also of those keepsNchwLayout keeps in NCHW.
  int block = 0;
  /// Output-channel rows (j) of a one-vector register tile (1 or 2 fit the registers).
  int jam = 0;
  /// Most iterations of the register tile's unrolled output loop (its J: r of a one-vector tile,
  /// the rows of a row-of-vectors one); the largest divisor of the extent up to it is taken.
  int unroll = 0;
  /// The order of a register tile's outer output loops (RegisterTile::rowsOutside):
  /// kChannelsOutside or kRowsOutside.
  int order = 0;
  bool operator==(const TraceChoices &) const = default;
};

/// TraceChoices::order: the output-channel loop outside the output rows, (n, k0, oh, ow0).
inline constexpr int kChannelsOutside = 1;
/// TraceChoices::order: the output rows outside the output-channel loop, (n, oh, k0, ow0).
inline constexpr int kRowsOutside = 2;

/// A member of TraceChoices and its name, the argument of the default_trace step, of
/// choicesText and of nasc search's report.
struct TraceChoiceMember {
  const char *name;
  int TraceChoices::*value;
};

/// Every member of TraceChoices, in the order they are written.
inline constexpr TraceChoiceMember kTraceChoiceMembers[] = {
    {"block", &TraceChoices::block},
    {"jam", &TraceChoices::jam},
    {"unroll", &TraceChoices::unroll},
    {"order", &TraceChoices::order},
};

/// The primitive of a schedule file's step that gives a kernel the default trace with its
/// arguments as TraceChoices ({"primitive": "default_trace", "block": 4, "jam": 2, "unroll": 8,
/// "order": 2}; arguments left out are 0). Like a neural step it names no statement; it follows the
/// neural steps of its trace, if any, and is the last step.
inline constexpr const char *kDefaultTracePrimitive = "default_trace";

/// Whether `trace` leaves its kernel to the default trace: it is not empty and every step is a
/// neural step or the default_trace step (last, at most one). Throws nasc::Error naming
/// `source` and the node when a default_trace step is not the last or follows a schedule step.
bool scheduledByDefault(const KernelSchedule &trace, const std::string &source);

/// The choices of `trace`'s default_trace step, all 0 without one. Throws nasc::Error naming
/// `source` and the node for a negative choice.
TraceChoices traceChoices(const KernelSchedule &trace, const std::string &source);

/// The default_trace step making `choices`.
ScheduleStep defaultTraceStep(const TraceChoices &choices);

/// `choices` as text, "block=4 jam=2 unroll=8" (the choices that are not 0; "" for none).
std::string choicesText(const TraceChoices &choices);

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

/// A register tile: per tiled output dimension, outermost first, the iterations of it that the
/// tile holds; the last is the vectorized dimension, the others are unrolled. The loops of a
/// dimension whose count is below its extent are split.
struct RegisterTile {
  struct Loop {
    size_t dim = 0;
    int count = 0;
  };
  /// Outermost first; an iterator may have several loops (a vectorized dimension split into
  /// vectors and lanes), each a split of the one before.
  std::vector<Loop> loops;
  /// Whether the outer part of iterator `channels` goes after the other outer output loops,
  /// just before the outer part of `columns` ((n, oh, k0, ow0) instead of (n, k0, oh, ow0)), so
  /// a row of the input operand is reused by every output channel while in cache.
  bool rowsOutside = false;
  size_t channels = 0; ///< With rowsOutside: the output-channel iterator (k0, or k in NCHW).
  size_t columns = 0;  ///< With rowsOutside: the output-column iterator (ow).
  /// A reduction iterator (c0) split into chunks of `count` iterations, the chunks' loop right
  /// after the outer part of `channels` ((n, k0, c0 chunk, oh, ow0, c0 in chunk, ...)), so one
  /// chunk of the weights stays in the L1 cache across every output row and column; nullopt
  /// for no chunks.
  std::optional<Loop> reductionChunk;
};

/// Most output-channel rows of a register tile over rows of vectors in NCHW: each row is an
/// output plane of its own; with 16 rows of one 16-lane vector LLVM kept no accumulator in a
/// register (Zen 5, 1x1 32 -> 16 at 112x112: 0.62 ms against 0.091 ms with 8 rows).
inline constexpr int kMaxNchwTileRows = 8;

/// Most vectors along the innermost output dimension of an unblocked register tile (its rows
/// share each loaded vector of the streamed operand; more vectors leave fewer registers to
/// rows, which share each broadcast).
inline constexpr int kMaxRowVectors = 3;

/// Most vectors of a register tile over a whole row of a grouped conv kept in NCHW whose row is
/// not a multiple of the vector, the last vector partial (generated apart by isl, vectorized by
/// LLVM at a narrower width): 56 columns are 3.5 vectors of 16 (AVX-512); a tile of 4 output
/// channels by the 4 vectors, 16 accumulators, ran ResNet-18's layer-1 3x3 conv with group 8
/// (8 channels per group) in 0.17-0.18 ms against 0.38 blocked by 8 and 0.33 with 8 channels by
/// 4 vectors (Zen 5, 1 thread, docs/performance.md).
inline constexpr int kMaxPartialRowVectors = 4;

/// Whether the default layout leaves convolution statement `st` (its domain a box, i.e. after
/// pad_input) in NCHW, not block_channels: a convolution whose loads move by one element along
/// ow, with ow a multiple of at least two vectors, that is depthwise (channel multiplier 1) or
/// dense 1x1 (every reduction loop but the input channels' has one iteration) with a number of
/// vectors in ow that some 2 to kMaxRowVectors divides, or with output channels that fit one
/// vector (AVX-512: MobileNetV2's 1x1 32 -> 16 at 112x112, 7 vectors, 0.40 -> 0.077 ms in a
/// chain on Zen 5). ResNet-50's 1x1 convs at 56 columns, 7 vectors of 8 on AVX2, stay blocked:
/// in NCHW the network ran 4% slower (again 2026-12-03 with --cpu x86-64-v3 on Zen 5), its 3x3
/// neighbours then copying between layouts. Its default
/// register tile then vectorizes it along ow with no relayout copies (AVX2, 1 thread:
/// MobileNetV2's 1x1 32 -> 16 at 112x112 2.6x and its depthwise 3x3 of 32 channels at 112x112
/// 1.5x faster than blocked, docs/performance.md).
/// Also a grouped conv, not depthwise, whose output channels per group are not a multiple of
/// the vector (block_channels would fill part of each vector), with loads moving by one element
/// along ow, ow a multiple of at least two vectors or a partial row (more than one vector, at most
/// kMaxPartialRowVectors, the remainder a power of two of at least kMinChannelBlock lanes), when
/// its defaultRegisterTile in NCHW holds at least kMinTileAccumulators accumulator vectors
/// (AVX-512, 1 thread, Zen 5: group 8 of ResNet-18's layer-1 conv, 8 channels per group at
/// 56x56, 0.38 -> 0.18 ms; AVX2 keeps it blocked by 8, a full vector; a row of one vector, 16
/// columns, ran 0.058 ms blocked by 8 and 0.44 in NCHW).
bool keepsNchwLayout(const ir::Statement &st, const codegen::VectorUnit &unit);

/// Depth of the loops the default trace fuses around a reduction statement: (n, k, oh) of a
/// convolution, so each output row gets its bias, activation and copy-out while in cache.
inline constexpr int kEpilogueFuseDepth = 3;

/// Depth at which the default trace fuses the statements writing a convolution's padded input
/// (pad_input's halo fills and copy) when they do not join the convolution: (n, c), the loops
/// that all of them share whatever the padding.
inline constexpr int kProducerFuseDepth = 2;

/// Statement instances (the points of the iteration domains of the statements a band schedules,
/// counted over their boxes of extents) below which the default trace parallelizes no loop of
/// the band: a thread team costs 3.1-3.4 us a region on Zen 5 (2 threads, libgomp) and the
/// second thread reads what the first wrote from the other core's cache. ResNet-18's global
/// average pool (25,600 instances) took 0.012 ms on one thread and 0.033 on two (Zen 5,
/// docs/performance.md); the halo fills of a conv's padded input (14,848 instances for 64
/// channels at 56x56) take about a microsecond. The smallest convs, ResNet-18's 1x1
/// projections (over 10^6), still gain from two threads.
inline constexpr int64_t kMinParallelInstances = 1 << 16;

/// Bytes of an operand's working set that the default trace counts as staying in cache when a
/// loop streams it again (rowsOutside): half of the 1 MiB per-core L2 of Zen 4/5 and of Intel's
/// server cores, the rest left to the other operand, the outputs and conflicts.
inline constexpr double kStreamCacheBytes = 512 * 1024;

/// Bytes of the weights one output-channel iteration of a register tile reads that the L1 data
/// cache keeps across the tiles of a row: a quarter of a 32 KiB L1 (Zen 3 and 4; Zen 5 and recent
/// Intel cores have 48 KiB), the rest holding the input rows streamed through it. Chosen on Zen 3
/// (AVX2) only.
inline constexpr double kL1WeightBytes = 8 * 1024;

/// Iterations of the input-channel block loop (c0) in a reduction chunk: 8 blocks, 64 channels
/// with 8-lane blocks (measured on Zen 3, AVX2, for a 1x1 conv 512 -> 1024 at 14x14: chunks of 4
/// and 16 slower, docs/performance.md; not measured with AVX-512's 16-lane or NEON's 4-lane
/// blocks).
inline constexpr int kReductionChunk = 8;

/// Iterations of the input-channel block loop (c0) in a reduction chunk of a windowed statement
/// (a 3x3 conv): 2 blocks, whose weights (36 KiB for a 2 x 16-lane tile, 32 channels x 9 taps)
/// stay in a 48 KiB L1 across the output rows. Measured on Zen 5 (AVX-512, 1 thread) for the
/// 3x3 512 -> 512 convs at 7x7 and 4x4, chunks of 1, 2, 4 and 8 blocks: 2 was the best or
/// within noise of it on both (docs/performance.md).
inline constexpr int kWindowReductionChunk = 2;

/// Fewest output columns (the register tile's J, ow) for which a reduction chunk pays: a chunk's
/// weights are reused across the output plane, too small a plane leaves nothing to gain. A 1x1 conv
/// 256 -> 512 at 4x4 (CIFAR ResNet-34's layer4.0 downsample) ran 26-30 GFLOP/s chunked against
/// 51-60 unchunked on Zen 3 (AVX2, 1 thread, tools/bench/tile_sweep.py); the 7x7 and 14x14 layers
/// above gained.
inline constexpr int64_t kMinChunkColumns = 7;

/// Most accumulator vectors of a one-vector register tile: half of AVX-512's registers (28, a
/// 14 x 2 tile, spilled: docs/performance.md).
inline constexpr int kMaxTileAccumulators = 16;

/// Accumulator vectors a one-vector register tile needs to keep two FMA pipes of 4-cycle latency
/// busy (Zen 3-5, Intel since Skylake); a tile of 2 output-channel vectors that reaches it is
/// preferred over one vector with more columns (measured on AVX2, docs/performance.md).
inline constexpr int kMinTileAccumulators = 8;

/// The smallest channel block the default layout gives a convolution (narrower vectors are not
/// worth the relayout).
inline constexpr int kMinChannelBlock = 4;

/// The register tile the default trace gives statement `st` on a machine with `unit`, or
/// nullopt when `st` has constraints (its domain is not a box, e.g. a padded convolution before
/// pad_input), defaultLoopOrder is the identity or a load reads along its innermost dimension O
/// with a stride other than 1 element. Two shapes:
///  - O is one vector (at least kMinChannelBlock and dividing unit.lanes, e.g. k1 of a
///    block_channels conv): j iterations of K times r of J (ow: the innermost output dimension
///    before O that some load along O does not use, so that load, the weight vector, is shared
///    by the r columns) times O whole. K (k0 of a dense conv, k'0 of a grouped one) is used by
///    the loads along O and by none of the others, the broadcast loads shared by the j vectors;
///    a statement without broadcast loads (a depthwise conv vectorized over channels) has no K
///    and j = 1. j in {2, 1} dividing K and r the largest divisor of J's extent with r·j at
///    most kMaxTileAccumulators and unit.registers − j − 1 (the accumulators, j weight vectors
///    and one broadcast input in registers); j = 2 when its r·j is at least the r of j = 1 or
///    kMinTileAccumulators (AVX-512: 2 x 8 for 56 columns, 2 x 7 for 7; AVX2: 2 x 4 for 56 and
///    28, 1 x 14 for 14, 1 x 7 for 7; measured, docs/performance.md); when r·j is at most
///    kMinTileAccumulators and r is J's whole extent, the tile also takes h of the last output
///    dimension before J that the broadcast loads use (oh), h the most that fit the accumulators
///    (at least 2; it need not divide the extent: the partial tile is generated apart,
///    poly::isolateFullTiles; AVX2 at 7x7: 2 x 7 x 1 vector, 3.05 -> 2.8 ms for a 512-channel
///    3x3 on Zen 3; AVX-512 at 4x4: 2 x 2 x 4, CIFAR ResNet-34's layer4 3x3s 0.34 -> 0.18 and
///    0.69 -> 0.49 ms on Zen 5; AVX2's 13 accumulators hold one such row, docs/performance.md);
///    rowsOutside (K's outer
///    loop inside the output rows) when the weights streamed once per output row move fewer
///    bytes beyond the cache than the input streamed once per outer iteration of K: an operand
///    of B bytes streamed T times moves (T - 1) · B unless its working set (the weights; the
///    input with one iteration's weights) fits in kStreamCacheBytes, then nothing. AVX-512:
///    ResNeXt-50's 1x1 512 -> 256 at 28x28 streams 1.6 MB of input 8 times, its 512 KB of
///    weights stay: rows outside; ResNet-34's 3x3 512 -> 512 at 7x7 streams 166 KB of input
///    beside 590 KB of weights 16 times (2.5 MB), against 9.4 MB of weights 7 times: channels
///    outside (measured on Zen 5, 1 and 2 threads, docs/performance.md); with channels
///    outside, a windowless statement (a 1x1 conv: no broadcast index adds a reduction iterator
///    of more than one iteration to an output one) whose weights of one iteration of K's outer
///    loop exceed kL1WeightBytes, with at least kMinChunkColumns output columns, gets a
///    reductionChunk of its first reduction iterator used by the weights and the broadcast loads
///    (c0), of the largest divisor of its extent up to kReductionChunk, when that is below the
///    extent (Zen 3, AVX2, 1 thread, in ResNeXt-50: its 1x1 512 -> 1024 at 14x14 0.64-0.81x the
///    time, 2048 -> 1024 at 7x7 0.66-0.72x, 1024 -> 2048 at 7x7 1.10-1.24x; turning a rows-outside
///    tile into a chunked one was slower as often as faster, docs/performance.md), and a
///    windowed one (a 3x3 conv) whose weights of one such iteration exceed kStreamCacheBytes
///    gets one of kWindowReductionChunk (AVX-512: ResNet-34's 3x3 512 -> 512 at 7x7, 590 KB per
///    iteration, c0 in chunks of 2 blocks; 256 channels, 295 KB, none: chunks did not pay there,
///    docs/performance.md);
///  - O a multiple of at least two vectors (a keepsNchwLayout conv: ow): defaultJamDimension J
///    (when it precedes O) by r times v vectors of O (v the largest divisor of O's vectors up
///    to kMaxRowVectors, r the largest divisor of J's extent with r·v at most
///    kMaxTileAccumulators and unit.registers − v − 1), O split into the v vectors and a
///    vector's lanes, rowsOutside (AVX2, 1x1 32 -> 16 at 112: 4 x 2 vectors of 8); without J
///    (depthwise) v vectors alone, v the largest divisor up to kMaxTileAccumulators and
///    unit.registers − 2 (AVX2 at 112: 14 vectors of 8);
///  - O a partial row of a grouped conv keepsNchwLayout keeps for its partial vector groups
///    (3.5 vectors: 56 columns on AVX-512): J by r times all of O's vectors, r as for a
///    multiple of vectors; the last vector's loop has the remainder's lanes;
///  - otherwise defaultJamDimension J (when it precedes O) by kTileRows, and O by the first of
///    kTileWidths dividing it; nullopt if J is missing or neither divides.
/// `choices.jam` and `choices.unroll`, where they apply, replace j and the limit of r;
/// `choices.order` (kChannelsOutside, kRowsOutside) replaces rowsOutside where a tile has an
/// output-channel loop; kRowsOutside leaves out the reductionChunk.
std::optional<RegisterTile> defaultRegisterTile(const ir::Statement &st,
                                                const codegen::VectorUnit &unit,
                                                const TraceChoices &choices = {});

/// Applies the default layout steps to the kernel of program.calls[call] and returns them, in
/// order: pad_input of each zero-padded convolution statement (compiler/transforms/PadInput.h),
/// then, for each convolution (dense, grouped or depthwise) but keepsNchwLayout ones:
/// subsample_input when it is strided and windowless (SubsampleInput.h: a strided 1x1 conv reads
/// a compact copy of the points it uses, then is blocked like a unit-stride one; judged before
/// the copy, so one that would then keep NCHW is blocked all the same, as its blocked
/// neighbours read it) and block_channels (BlockChannels.h) with block the first of the vector's
/// lanes, halved while at least kMinChannelBlock, that block_channels accepts, and its default
/// input block; `choices.block`, where block_channels accepts it, for every convolution; and
/// block_channels of a max-pool whose input is the NCHW copy of a blocked activation of an
/// earlier kernel (copiedOutBlock, ForwardBlocked.h), with that activation's block.
std::vector<ScheduleStep> applyDefaultLayout(ir::Program &program, size_t call,
                                             const codegen::VectorUnit &unit,
                                             const TraceChoices &choices = {});

/// The default trace of `kernel` (Scop `scop` from poly::buildScop, dependences `deps`),
/// named `node`, for a machine with `unit`: per statement in order, the defaultRegisterTile when
/// there is one (split its loops where the tile holds fewer iterations than the loop, order
/// (outer outputs with the outer parts, reductions, the tile's loops in order), unroll all but
/// the last: the tile's outputs stay in vector registers across the reduction loops; all its
/// steps or none); otherwise
/// interchange to defaultLoopOrder when that is legal and not the identity, and unroll-and-jam
/// of defaultJamDimension by kJamFactor (split it, move the inner part innermost, unroll it: the
/// vectorized loop then computes kJamFactor outputs per load of the shared operand); then
/// fuse each run of consecutive statements around a reduction statement that access the
/// tensor it writes, where legal (around a register-tiled one, the others first split and
/// ordered as its outer loops are, matched through the tensor's index, and fused at its outer
/// output loops, at most kEpilogueFuseDepth; around others at kEpilogueFuseDepth), and the
/// statements just before such a run that write a tensor the reduction reads (pad_input's) with
/// it when legal, else among themselves at kProducerFuseDepth; then per
/// statement in order parallelize the outermost member of its (possibly shared) band that
/// carries no dependence and has more than one iteration (poly::outermostParallelMember), if
/// any.
/// Register tiles are defaultRegisterTile's with `choices`.
/// Applying it with applyTrace gives the default schedule.
KernelSchedule defaultTrace(const poly::Scop &scop, const poly::Dependences &deps,
                            const ir::Kernel &kernel, const std::string &node,
                            const codegen::VectorUnit &unit, const TraceChoices &choices = {});

/// A trace and the schedule applyTrace makes of it from the Scop's initial schedule.
struct ScheduledTrace {
  KernelSchedule trace;
  isl::schedule schedule;
};

/// defaultTrace with the default schedule it gives, which building the trace computes anyway
/// (so the pipeline does not replay it).
ScheduledTrace defaultSchedule(const poly::Scop &scop, const poly::Dependences &deps,
                               const ir::Kernel &kernel, const std::string &node,
                               const codegen::VectorUnit &unit, const TraceChoices &choices = {});

} // namespace nasc::compiler
