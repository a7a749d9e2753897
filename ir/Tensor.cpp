#include "ir/Tensor.h"

namespace nasc::ir {

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shapeToString(const Shape &shape) {
  std::string s;
  for (size_t k = 0; k < shape.size(); ++k)
    s += (k ? "x" : "") + std::to_string(shape[k]);
  return s.empty() ? "scalar" : s;
}

Tensor Tensor::zeros(const Shape &shape, float value) {
  Tensor t;
  t.shape = shape;
  t.f.assign(static_cast<size_t>(numElements(shape)), value);
  return t;
}

} // namespace nasc::ir
