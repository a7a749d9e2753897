// Comparison of computed tensors with independent expected values, shared by the tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace nasc::test {

/// max |got - want| / max(floor, max |want|): the relative error the issues' tolerances use
/// (floor = 0: "max abs error / max abs value"). Infinite if the sizes differ or any value of
/// `got` is NaN or infinite where `want` is finite, so a NaN output never passes.
inline double relativeError(const std::vector<float> &got, const std::vector<float> &want,
                            double floor = 0.0) {
  if (got.size() != want.size())
    return std::numeric_limits<double>::infinity();
  double err = 0, scale = floor;
  for (size_t k = 0; k < want.size(); ++k) {
    double d = std::fabs(static_cast<double>(got[k]) - want[k]);
    if (!std::isfinite(d))
      return std::numeric_limits<double>::infinity();
    err = std::max(err, d);
    scale = std::max(scale, std::fabs(static_cast<double>(want[k])));
  }
  return scale > 0 ? err / scale : err;
}

} // namespace nasc::test
