// Keeps activations in the blocked layout between kernels: when block_channels left a kernel
// copying its output O' (nChw[x]c) back to O (NCHW) and every reader of O in later kernels
// indexes O's channels as x·a + b (a, b iterators, b < x: readers that are blocked
// themselves, e.g. the next conv's pad copy or a residual Add), the copy is dropped and the
// readers read O'[.., a, .., b] instead; a reader's statement that then copies O' unchanged
// into a tensor of its own (the pack copy of a blocked conv without padding) is dropped, its
// loads reading O' directly.
#pragma once

#include "ir/Program.h"

#include <cstddef>
#include <cstdint>

namespace nasc::compiler {

/// Applies the rewrite above to every copy-out statement of `program` it can; returns how many
/// copies it removed. A copy stays when O is a graph output, is written by another kernel or
/// statement, or a reader indexes its channels otherwise (e.g. an unblocked max-pool, global
/// pooling).
/// Kernel tensors no longer used are unbound, so the workspace plan drops O.
int forwardBlockedLayouts(ir::Program &program);

/// The block x of the blocked activation T' whose NCHW copy T kernel tensor `t` of
/// program.calls[c] is: the block of an earlier call's copy-out statement T[.., x·a + b, ..] =
/// T'[.., a, .., b] writing the buffer bound to `t` (block_channels' copy back to NCHW, which
/// forwardBlockedLayouts drops when every reader is blocked the same way), or 0 when no earlier
/// call writes it that way.
int64_t copiedOutBlock(const ir::Program &program, size_t c, int t);

} // namespace nasc::compiler
