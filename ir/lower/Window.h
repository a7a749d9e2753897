// Internal to ir/lower: sliding-window geometry shared by Conv and the pools (pads from the
// `pads` / `auto_pad` attributes) and the in-bounds constraints that replace reading padding.
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

/// The input index out·stride + k·dilation − padBegin, with `out` and `k` the iterators of
/// `st` at positions outIter and kernelIter.
AffineExpr windowIndex(const Statement &st, size_t outIter, size_t kernelIter,
                       const WindowDim &dim);

/// Restricts `st` to 0 <= index <= input − 1, adding only the bounds the box does not imply.
void constrainToInput(Statement &st, const AffineExpr &index, const WindowDim &dim);

/// For each output position o, the number of kernel positions k whose input index
/// o·stride + k·dilation − padBegin lies in [lo, hi].
std::vector<int64_t> windowCounts(const WindowDim &dim, int64_t lo, int64_t hi);

} // namespace nasc::ir::lower
