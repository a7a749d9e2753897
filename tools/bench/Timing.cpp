#include "tools/bench/Timing.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace nasc::bench {

double secondsOf(const std::function<void()> &work) {
  auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

} // namespace

AlternatingTiming timeAlternating(const std::function<double()> &first,
                                  const std::function<double()> &second, int minRuns,
                                  double minSeconds) {
  std::vector<double> a, b;
  double totalA = 0, totalB = 0;
  while (static_cast<int>(a.size()) < std::max(minRuns, 1) || totalA < minSeconds ||
         totalB < minSeconds) {
    a.push_back(first());
    b.push_back(second());
    totalA += a.back();
    totalB += b.back();
  }
  return {median(a), median(b), *std::min_element(a.begin(), a.end()),
          *std::min_element(b.begin(), b.end()), static_cast<int>(a.size())};
}

} // namespace nasc::bench
