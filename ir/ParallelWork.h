// Independent work items run by a few threads of this process (compile time, measurements).
#pragma once

#include <cstddef>
#include <functional>

namespace nasc::ir {

/// The thread count that `requested` stands for: itself if positive, else the number of
/// hardware threads of this machine (std::thread::hardware_concurrency, at least 1).
int resolveThreads(int requested);

/// Calls work(i) for every i in [0, count), on up to resolveThreads(threads) threads (the
/// calling one included); each thread takes the next item not yet taken. Returns when every
/// item is done; then rethrows the exception of the lowest-numbered item that threw, if any,
/// so that the error does not depend on the thread count. `work` must be safe to call
/// concurrently for different items.
void forEachInParallel(size_t count, int threads, const std::function<void(size_t)> &work);

} // namespace nasc::ir
