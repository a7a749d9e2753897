// Seeded random tensors for tests.
#pragma once

#include "ir/Tensor.h"

#include <random>

namespace nasc::test {

/// A float32 tensor of `shape` with values uniform in [-scale, scale) from std::mt19937(seed).
inline ir::Tensor uniformTensor(const ir::Shape &shape, unsigned seed, float scale) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  ir::Tensor t = ir::Tensor::zeros(shape);
  for (float &v : t.f)
    v = uniform(engine);
  return t;
}

/// A float32 tensor of `shape` with standard-normal values from std::mt19937(seed).
inline ir::Tensor normalTensor(const ir::Shape &shape, unsigned seed) {
  std::mt19937 engine(seed);
  std::normal_distribution<float> normal;
  ir::Tensor t = ir::Tensor::zeros(shape);
  for (float &v : t.f)
    v = normal(engine);
  return t;
}

} // namespace nasc::test
