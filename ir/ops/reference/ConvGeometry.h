// Window geometry of Conv / MaxPool / AveragePool: effective pads and output sizes (ONNX rules).
#pragma once

#include "ir/Graph.h"

#include <array>
#include <cstdint>
#include <vector>

namespace nasc::ir::reference {

/// Per-spatial-dimension geometry of a sliding window (outermost spatial dimension first).
/// Input element of output position o and kernel offset r in dimension d:
/// `o * strides[d] + r * dilations[d] - padsBegin[d]`, valid when inside [0, input[d]).
struct WindowGeometry {
  std::vector<int64_t> input;
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> padsBegin;
  std::vector<int64_t> padsEnd;
  std::vector<int64_t> output;
};

/// The geometry of `node` (Conv, MaxPool or AveragePool) on an input with spatial sizes
/// `inputSpatial` and a window of `kernel` sizes, from the attributes strides, dilations, pads
/// and auto_pad (ONNX operator spec, opset 11-17):
///  - NOTSET: out = floor_or_ceil((in + pb + pe - ((k-1)*d+1)) / s) + 1. With `ceilMode`, a
///    last window that would start inside the end padding is dropped (as PyTorch and ONNX
///    Runtime do, and the ONNX spec from opset 19).
///  - SAME_UPPER / SAME_LOWER: out = ceil(in / s); total pad = max(0, (out-1)*s + (k-1)*d+1 - in),
///    the odd extra pad at the end (UPPER) or at the beginning (LOWER).
///  - VALID: no pads, out = floor((in - ((k-1)*d+1)) / s) + 1.
/// Throws nasc::Error naming the node and attribute for wrong attribute lengths, non-positive
/// strides / dilations / kernel sizes, negative pads, an unknown auto_pad, or an empty output.
WindowGeometry windowGeometry(const ir::Node &node, const std::vector<int64_t> &inputSpatial,
                              const std::vector<int64_t> &kernel, bool ceilMode);

/// A WindowGeometry of 1, 2 or 3 spatial dimensions embedded in exactly 3 (leading dimensions
/// of size 1 with kernel 1, stride 1, dilation 1, no pads), so kernels need one loop nest.
struct Window3 {
  std::array<int64_t, 3> input, kernel, strides, dilations, padsBegin, output;

  int64_t inputSize() const { return input[0] * input[1] * input[2]; }
  int64_t kernelSize() const { return kernel[0] * kernel[1] * kernel[2]; }
  int64_t outputSize() const { return output[0] * output[1] * output[2]; }
  /// Input coordinate in dimension d of output position o and kernel offset r (may be outside).
  int64_t inputCoord(int d, int64_t o, int64_t r) const {
    return o * strides[d] + r * dilations[d] - padsBegin[d];
  }
};

/// `geometry` embedded in 3 spatial dimensions; throws nasc::Error naming `node` when it has
/// more than 3 (or no) spatial dimensions.
Window3 embedIn3(const ir::Node &node, const WindowGeometry &geometry);

} // namespace nasc::ir::reference
