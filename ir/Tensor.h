// Dense tensor values: shapes and float32 / int64 data, row-major (NCHW for activations).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nasc::ir {

/// Element type of a value in the graph. Activations and weights are Float32; Int64 appears
/// only in shape-like constants (e.g. a Reshape's shape input).
enum class DType { Float32, Int64 };

/// Shape of a tensor, outermost dimension first (NCHW for 4-d activations, OIHW for weights).
using Shape = std::vector<int64_t>;

/// Number of elements of `shape` (1 for a scalar, rank 0).
int64_t numElements(const Shape &shape);

/// "1x3x224x224"-style text of a shape, for messages and dumps.
std::string shapeToString(const Shape &shape);

/// A dense row-major tensor. Exactly one of `f` / `i` holds data, according to `dtype`.
struct Tensor {
  DType dtype = DType::Float32;
  Shape shape;
  std::vector<float> f;   ///< Float32 data, numElements(shape) entries.
  std::vector<int64_t> i; ///< Int64 data, numElements(shape) entries.

  /// Float32 tensor of `shape` filled with `value`.
  static Tensor zeros(const Shape &shape, float value = 0.0f);
  int64_t size() const { return numElements(shape); }
};

} // namespace nasc::ir
