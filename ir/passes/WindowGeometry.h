// Resolved geometry of sliding-window ops (Conv, MaxPool, AveragePool): pads, strides, output.
#pragma once

#include "ir/Graph.h"

#include <cstdint>
#include <vector>

namespace nasc::ir {

/// Window parameters of a Conv / MaxPool / AveragePool over the spatial dims of its NC[D]HW
/// input, with auto_pad resolved into explicit pads, ONNX operator spec (Conv-11, MaxPool-12,
/// AveragePool-11). All vectors have one entry per spatial dim.
/// Output size per dim with effective kernel e = (kernel-1)*dilation + 1:
///   NOTSET: floor((in + padBegin + padEnd - e) / stride) + 1   (ceil instead of floor when
///           ceil_mode=1, dropping a last window that would start in the end padding, PyTorch's
///           rule); VALID: the same with zero pads; SAME_UPPER / SAME_LOWER: ceil(in / stride),
///           total pad max(0, (out-1)*stride + e - in), the odd pixel at the end (UPPER) or the
///           beginning (LOWER).
struct WindowGeometry {
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> padsBegin;
  std::vector<int64_t> padsEnd;
  std::vector<int64_t> outputSpatial;
};

/// Geometry of `node` applied to `input` (N, C, spatial...), with window size `kernel`
/// (Conv: W's spatial dims; pools: kernel_shape). Throws nasc::Error naming the node and the
/// attribute when an attribute has the wrong length or value, or the output would be empty.
WindowGeometry windowGeometry(const Node &node, const Shape &input,
                              const std::vector<int64_t> &kernel);

} // namespace nasc::ir
