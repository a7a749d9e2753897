// Forward kernels of the reference executor, one function per ONNX op (float32, NCHW).
// Each takes the node (for attributes and error messages) and its input tensors and returns its
// outputs; each throws nasc::Error naming the node for inputs or attributes it does not support.
#pragma once

#include "ir/ops/reference/OpSupport.h"

namespace nasc::ir::reference {

/// Conv (Conv.cpp): X (N,C,D1..Dr), W (K,C/group,k1..kr), optional B (K); r in 1..3.
/// Y (N,K,o1..or) by im2col + one Eigen matrix product per image and group.
OpOutputs conv(const ir::Node &node, const OpInputs &inputs);

/// MaxPool (Pool.cpp): X (N,C,D1..Dr), r in 1..3; only output Y (no Indices).
OpOutputs maxPool(const ir::Node &node, const OpInputs &inputs);
/// AveragePool (Pool.cpp): X (N,C,D1..Dr), r in 1..3; count_include_pad 0 divides by the window
/// elements inside the input, 1 by those inside the padded input (as PyTorch).
OpOutputs averagePool(const ir::Node &node, const OpInputs &inputs);
/// GlobalAveragePool (Pool.cpp): X (N,C,D1..Dr) -> (N,C,1..1), mean over the spatial dims.
OpOutputs globalAveragePool(const ir::Node &node, const OpInputs &inputs);
/// GlobalMaxPool (Pool.cpp): X (N,C,D1..Dr) -> (N,C,1..1), max over the spatial dims.
OpOutputs globalMaxPool(const ir::Node &node, const OpInputs &inputs);

/// Relu (Elementwise.cpp): max(x, 0), any shape.
OpOutputs relu(const ir::Node &node, const OpInputs &inputs);
/// Clip (Elementwise.cpp): min(max(x, min), max), any shape; bounds from the optional scalar
/// inputs min, max (Clip-11/13) or else the attributes min, max (Clip-6), default ±FLT_MAX.
OpOutputs clip(const ir::Node &node, const OpInputs &inputs);
/// Add (Elementwise.cpp): A + B with multidirectional (numpy) broadcasting.
OpOutputs add(const ir::Node &node, const OpInputs &inputs);
/// Sub (Elementwise.cpp): A - B with multidirectional (numpy) broadcasting.
OpOutputs sub(const ir::Node &node, const OpInputs &inputs);
/// Mul (Elementwise.cpp): A * B with multidirectional (numpy) broadcasting.
OpOutputs mul(const ir::Node &node, const OpInputs &inputs);
/// Div (Elementwise.cpp): A / B (IEEE float division) with multidirectional (numpy) broadcasting.
OpOutputs div(const ir::Node &node, const OpInputs &inputs);
/// BatchNormalization in inference mode (Normalization.cpp): X (N,C,...), scale/B/mean/var (C),
/// Y = (X - mean) / sqrt(var + epsilon) * scale + B.
OpOutputs batchNormalization(const ir::Node &node, const OpInputs &inputs);

/// Gemm (Gemm.cpp): Y (M,N) = alpha * A' B' + beta * C, A' = transA ? A^T : A (M,K),
/// B' = transB ? B^T : B (K,N), optional C unidirectionally broadcast to (M,N).
OpOutputs gemm(const ir::Node &node, const OpInputs &inputs);
/// MatMul (Gemm.cpp): Y (M,N) = A (M,K) B (K,N); inputs of other ranks are not supported.
OpOutputs matMul(const ir::Node &node, const OpInputs &inputs);

/// Flatten (ShapeOps.cpp): (d0..d{r-1}) -> (d0*..*d{axis-1}, d{axis}*..*d{r-1}).
OpOutputs flatten(const ir::Node &node, const OpInputs &inputs);
/// Concat (ShapeOps.cpp): float32 inputs joined along `axis` (negative counts from the end).
OpOutputs concat(const ir::Node &node, const OpInputs &inputs);
/// Reshape (ShapeOps.cpp): data reshaped to the int64 `shape` input; 0 copies the input
/// dimension (unless allowzero=1), -1 is inferred.
OpOutputs reshape(const ir::Node &node, const OpInputs &inputs);
/// Identity (ShapeOps.cpp): a copy of the input, any dtype.
OpOutputs identity(const ir::Node &node, const OpInputs &inputs);
/// Squeeze (ShapeOps.cpp), ONNX Squeeze-1/11/13: data (float32 or int64) without the dims of 1
/// listed in axes (attribute, or int64 input 1 from opset 13; all dims of 1 when absent); axes in
/// [-r, r-1]. Listing a dimension other than 1 is an error.
OpOutputs squeeze(const ir::Node &node, const OpInputs &inputs);
/// Unsqueeze (ShapeOps.cpp), ONNX Unsqueeze-1/11/13: data (float32 or int64) with dims of 1
/// inserted at axes (attribute, or required int64 input 1 from opset 13), positions in the output
/// of rank r + k, in [-(r+k), r+k-1].
OpOutputs unsqueeze(const ir::Node &node, const OpInputs &inputs);
/// Dropout in inference (ShapeOps.cpp): a copy of the input; the mask output and
/// training_mode = true are not supported.
OpOutputs dropout(const ir::Node &node, const OpInputs &inputs);
/// Slice (Slice.cpp), ONNX Slice-10/13: data (any float32 shape) and int64 starts, ends, optional
/// axes and steps (negative values count from the end, clamped as the spec says; negative steps
/// read backwards).
OpOutputs slice(const ir::Node &node, const OpInputs &inputs);
/// Resize (Resize.cpp), ONNX Resize-11/13 with mode 'nearest' only: X, optional roi, scales
/// (float32) or sizes (int64), exactly one non-empty; output extent floor(in · scale) or sizes;
/// every coordinate_transformation_mode and nearest_mode of the spec, the source index clamped to
/// the input (tf_crop_and_resize: extrapolation_value outside the roi box).
OpOutputs resize(const ir::Node &node, const OpInputs &inputs);
/// Constant (ShapeOps.cpp): the tensor of attribute value / value_float(s) / value_int(s).
OpOutputs constant(const ir::Node &node, const OpInputs &inputs);

} // namespace nasc::ir::reference
