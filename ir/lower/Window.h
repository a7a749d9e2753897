// Internal to ir/lower and the lowerings in ir/ops: sliding-window geometry shared by Conv and the
// pools (pads from the `pads` / `auto_pad` attributes, any number of spatial axes) and the
// in-bounds constraints that replace reading padding.
#pragma once

#include "ir/Graph.h"
#include "ir/Kernel.h"

#include <string>
#include <vector>

namespace nasc::ir::lower {

/// One spatial dimension of a window op: out = (in + padBegin + padEnd - ((kernel-1)·dilation+1))
/// / stride + 1, rounded down (or up with ceil_mode).
struct WindowDim {
  int64_t input = 0;
  int64_t output = 0;
  int64_t kernel = 0;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t padBegin = 0;
  int64_t padEnd = 0;
};

/// Window geometry of `node` for spatial sizes `input`, `kernel` and `output` (the inferred
/// output shape), from the ONNX attributes strides, dilations, pads ([x1_begin, x2_begin, ...,
/// x1_end, x2_end]) and auto_pad (NOTSET, VALID, SAME_UPPER, SAME_LOWER: pads computed from the
/// output size, the odd one at the end for SAME_UPPER, at the beginning for SAME_LOWER).
/// Throws nasc::Error (`where` prefixes the message) for attributes of the wrong length,
/// non-positive strides or dilations, negative pads, an unknown auto_pad, or an output size that
/// does not follow from them (the rounded-up size is accepted when `ceilMode`).
std::vector<WindowDim> windowDims(const std::string &where, const Node &node, const Shape &input,
                                  const Shape &kernel, const Shape &output, bool ceilMode);

/// The spatial axes D1, D2, ... of an N×C×D1×... shape.
Shape spatialDims(const Shape &shape);

/// Iterator names of the output positions of `rank` spatial axes: the last `rank` of od, oh, ow
/// (so oh, ow in 2-d), or o0, o1, ... beyond three axes.
std::vector<std::string> outputIterators(size_t rank);

/// Iterator names of the kernel offsets of `rank` spatial axes: the last `rank` of q, r, s (so
/// r, s in 2-d), or r0, r1, ... beyond three axes.
std::vector<std::string> kernelIterators(size_t rank);

/// The input indices out_i·stride_i + k_i·dilation_i − padBegin_i of every spatial axis i, with
/// out_i the iterator outFirst + i of `st` and k_i the iterator kernelFirst + i. Restricts `st`
/// to 0 <= index_i <= input_i − 1 (per axis, lower then upper bound), adding only the bounds the
/// box does not imply, so that padding is never read.
std::vector<AffineExpr> windowIndices(Statement &st, size_t outFirst, size_t kernelFirst,
                                      const std::vector<WindowDim> &dims);

/// For each output position o, the number of kernel positions k whose input index
/// o·stride + k·dilation − padBegin lies in [lo, hi].
std::vector<int64_t> windowCounts(const WindowDim &dim, int64_t lo, int64_t hi);

} // namespace nasc::ir::lower
