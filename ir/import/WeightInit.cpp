#include "ir/import/WeightInit.h"

#include <cmath>
#include <numbers>
#include <random>

namespace nasc::ir {

namespace {

/// Uniform in (0, 1]: the top 53 bits of one mt19937_64 output, shifted off zero.
double uniformOpenClosed(std::mt19937_64 &engine) {
  return (static_cast<double>(engine() >> 11) + 1.0) * 0x1.0p-53;
}

} // namespace

std::vector<double> standardNormals(size_t count, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<double> values;
  values.reserve(count + 1);
  while (values.size() < count) {
    double radius = std::sqrt(-2.0 * std::log(uniformOpenClosed(engine)));
    double angle = 2.0 * std::numbers::pi * uniformOpenClosed(engine);
    values.push_back(radius * std::cos(angle));
    values.push_back(radius * std::sin(angle));
  }
  values.resize(count);
  return values;
}

Tensor heNormal(const Shape &shape, uint64_t seed) {
  Shape fanShape(shape.size() > 1 ? shape.begin() + 1 : shape.end(), shape.end());
  const double stddev = std::sqrt(2.0 / static_cast<double>(numElements(fanShape)));
  Tensor tensor = Tensor::zeros(shape);
  std::vector<double> normals = standardNormals(tensor.f.size(), seed);
  for (size_t k = 0; k < normals.size(); ++k)
    tensor.f[k] = static_cast<float>(stddev * normals[k]);
  return tensor;
}

} // namespace nasc::ir
