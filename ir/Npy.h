// NumPy .npy files (format versions 1.0-3.0) holding float32 tensors, for CLI input/output.
#pragma once

#include "ir/Tensor.h"

#include <string>

namespace nasc::ir {

/// Reads a little-endian float32 ('<f4') or float64 ('<f8', converted) C-order .npy file.
/// Throws nasc::Error naming the file for anything else (Fortran order, other dtypes,
/// truncated data).
Tensor readNpy(const std::string &path);

/// Writes `tensor` (Float32) as a version 1.0 '<f4' C-order .npy file. Throws nasc::Error if
/// the file cannot be written.
void writeNpy(const std::string &path, const Tensor &tensor);

} // namespace nasc::ir
