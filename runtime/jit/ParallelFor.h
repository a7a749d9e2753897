// The JIT's definition of the runtime entry nasc_parallel_for that generated kernels call to
// run a parallel loop (OpenMP, libgomp).
#pragma once

#include <cstdint>

extern "C" {

/// Runs body(ctx, b, e) over [lb, ub) split into min(threads, ub - lb) contiguous ranges of
/// equal size (±1), one per OpenMP thread (static schedule), and returns when all are done.
/// With threads <= 1 (or fewer than two iterations) it calls body(ctx, lb, ub) on the calling
/// thread and spawns nothing; an empty range calls nothing. Must not be called from inside an
/// outlined body (generated code never nests parallel loops).
void nasc_parallel_for(void (*body)(void *ctx, int64_t begin, int64_t end), void *ctx, int64_t lb,
                       int64_t ub, int32_t threads);
}
