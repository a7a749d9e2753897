// Seeded, deterministic weight initialisers used by the JSON spec's "init" weights.
#pragma once

#include "ir/Tensor.h"

#include <cstdint>

namespace nasc::ir {

/// He (Kaiming) normal initialisation, He et al. 2015: values ~ N(0, sqrt(2 / fan_in)) with
/// fan_in = prod(shape[1:]) (1 for a rank-1 shape). Samples come from std::mt19937_64 seeded
/// with `seed`, turned into standard normals by our own Box-Muller transform (two 53-bit
/// uniforms per pair, cos sample first, then sin), so the values depend only on `seed` and
/// `shape`, not on the C++ standard library.
Tensor heNormal(const Shape &shape, uint64_t seed);

/// `count` standard normal samples N(0, 1) from the generator described at heNormal.
std::vector<double> standardNormals(size_t count, uint64_t seed);

} // namespace nasc::ir
