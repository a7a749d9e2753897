#include "runtime/jit/ParallelFor.h"

#include <omp.h>

extern "C" void nasc_parallel_for(void (*body)(void *, int64_t, int64_t), void *ctx, int64_t lb,
                                  int64_t ub, int32_t threads) {
  int64_t n = ub - lb;
  if (n <= 0)
    return;
  if (threads <= 1 || n == 1) {
    body(ctx, lb, ub);
    return;
  }
  int teams = static_cast<int>(n < threads ? n : threads);
#pragma omp parallel num_threads(teams)
  {
    int64_t t = omp_get_thread_num(), count = omp_get_num_threads();
    int64_t begin = lb + n * t / count, end = lb + n * (t + 1) / count;
    if (begin < end)
      body(ctx, begin, end);
  }
}
