// The per-op lowerings (one .cpp per op family in ir/lower), named by the op registry's OpDefs
// (ir/ops). Each appends the kernel(s) implementing its node(s) to the context; errors name the
// node.
#pragma once

#include "ir/Graph.h"
#include "ir/lower/LowerContext.h"

namespace nasc::ir::lower {

/// Conv (1-d, 2-d, 3-d, ...: N×C×D1×... / K×C/G×R1×..., group, strides, dilations, pads,
/// auto_pad, optional bias) with the Add and Relu fused into it (LowerContext::fusionOf) as extra
/// statements (Conv.cpp).
void lowerConv(LowerContext &ctx, const Node &node);
/// MaxPool and AveragePool over any number of spatial axes (Pool.cpp).
void lowerMaxPool(LowerContext &ctx, const Node &node);
void lowerAveragePool(LowerContext &ctx, const Node &node);
/// GlobalAveragePool and GlobalMaxPool over all spatial axes (GlobalPool.cpp).
void lowerGlobalAveragePool(LowerContext &ctx, const Node &node);
void lowerGlobalMaxPool(LowerContext &ctx, const Node &node);
/// BatchNormalization in inference mode with constant statistics (BatchNorm.cpp).
void lowerBatchNormalization(LowerContext &ctx, const Node &node);
/// Relu and Clip (Elementwise.cpp).
void lowerRelu(LowerContext &ctx, const Node &node);
void lowerClip(LowerContext &ctx, const Node &node);
/// Add, Sub, Mul, Div with numpy broadcasting (Elementwise.cpp).
void lowerBinary(LowerContext &ctx, const Node &node);
/// Gemm and 2-d MatMul (Gemm.cpp).
void lowerGemm(LowerContext &ctx, const Node &node);
void lowerMatMul(LowerContext &ctx, const Node &node);
/// Concat (Concat.cpp).
void lowerConcat(LowerContext &ctx, const Node &node);
/// Slice with constant starts / ends / axes / steps: one strided copy (Slice.cpp).
void lowerSlice(LowerContext &ctx, const Node &node);
/// Resize with mode 'nearest' where each axis' source index is floor((a·o + b) / d) within the
/// input (Resize.cpp).
void lowerResize(LowerContext &ctx, const Node &node);
/// Flatten, Reshape, Squeeze, Unsqueeze and Identity: row-major copies (Reshape.cpp).
void lowerReshape(LowerContext &ctx, const Node &node);
/// Copy of graph value `from` into program buffer `to` (same element count), as a kernel
/// implementing `nodes` (Reshape.cpp).
void lowerCopy(LowerContext &ctx, const std::string &name, const std::string &from, int to,
               std::vector<std::string> nodes);

} // namespace nasc::ir::lower
