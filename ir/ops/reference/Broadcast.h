// Numpy-style (ONNX multidirectional) broadcasting of shapes and float32 data.
#pragma once

#include "ir/Tensor.h"

#include <optional>
#include <vector>

namespace nasc::ir::reference {

/// The broadcast shape of `a` and `b` (ONNX Broadcasting.md: right-aligned, each dimension equal
/// or 1), or nullopt when they do not broadcast.
std::optional<ir::Shape> broadcastShapes(const ir::Shape &a, const ir::Shape &b);

/// The float32 data of `tensor` repeated to `shape` (row-major); `shape` must be a broadcast of
/// tensor.shape (checked by the caller with broadcastShapes).
std::vector<float> broadcastTo(const ir::Tensor &tensor, const ir::Shape &shape);

} // namespace nasc::ir::reference
