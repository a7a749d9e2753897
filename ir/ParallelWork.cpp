#include "ir/ParallelWork.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace nasc::ir {

int resolveThreads(int requested) {
  if (requested > 0)
    return requested;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void forEachInParallel(size_t count, int threads, const std::function<void(size_t)> &work) {
  std::vector<std::exception_ptr> errors(count);
  std::atomic<size_t> next = 0;
  auto drain = [&] {
    for (size_t item = next++; item < count; item = next++) {
      try {
        work(item);
      } catch (...) {
        errors[item] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  const size_t helperCount = std::min(static_cast<size_t>(resolveThreads(threads)), count);
  for (size_t t = 1; t < helperCount; ++t)
    helpers.emplace_back(drain);
  drain();
  for (std::thread &helper : helpers)
    helper.join();
  for (const std::exception_ptr &error : errors)
    if (error)
      std::rethrow_exception(error);
}

} // namespace nasc::ir
