// Alternating timing of two implementations of the same layer, in one process.
#pragma once

#include <functional>

namespace nasc::bench {

/// Median and minimum wall seconds per call of two workloads and the number of calls of each.
struct AlternatingTiming {
  double first = 0, second = 0;
  double firstMin = 0, secondMin = 0;
  int runs = 0;
};

/// Wall seconds of one call of `work` (std::chrono::steady_clock).
double secondsOf(const std::function<void()> &work);

/// Calls `first` and `second` alternately (first, second, first, ...), each returning the
/// seconds its call took (secondsOf, or a part of the call it timed itself), until each has
/// been called at least `minRuns` times and each has spent at least `minSeconds` in total;
/// returns the medians and minima. Alternating spreads
/// drift of clock frequency and machine load over both; the minima are the calls that were not
/// preempted (on a loaded machine the median can be a scheduler time slice). Warm-up calls are
/// the caller's.
AlternatingTiming timeAlternating(const std::function<double()> &first,
                                  const std::function<double()> &second, int minRuns,
                                  double minSeconds);

} // namespace nasc::bench
