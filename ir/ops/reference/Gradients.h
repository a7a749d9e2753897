// Backward kernels of the reference executor (float32, NCHW): one function per ONNX op family, plus
// BatchNormalization in training mode (forward and backward). Used by Training.h.
#pragma once

#include "ir/ops/reference/OpSupport.h"

namespace nasc::ir::reference {

/// BatchNormalization in training mode (BatchNormTraining.cpp), whatever its training_mode
/// attribute: X (N,C,...), scale and B (C); mean and biased variance over N and the spatial dims
/// (as PyTorch's batch_norm in train mode), Y = (X - mean) / sqrt(var + epsilon) * scale + B. The
/// running statistics inputs are ignored and the optional extra outputs not produced.
OpOutputs batchNormalizationTraining(const ir::Node &node, const OpInputs &inputs);
/// Gradient of batchNormalizationTraining w.r.t. X, through the batch statistics (means per
/// channel): dX = scale / sqrt(var + eps) * (dY - mean(dY) - Xhat * mean(dY * Xhat)).
InputGradients batchNormalizationTrainingBackward(const BackwardArgs &args);

/// Conv (ConvGrad.cpp): dX = col2im(W^T dY) per image and group (same geometry as conv).
InputGradients convBackward(const BackwardArgs &args);
/// Conv (ConvGrad.cpp): dL/dW (W's shape, at index 1) = Σ_n dY_n im2col(X_n)^T per group, the
/// gradient the backward pass leaves out (weights get none in convBackward).
InputGradients convWeightGradients(const BackwardArgs &args);

/// MaxPool (PoolGrad.cpp): dY goes to the first maximum of each window (as PyTorch's CPU kernel).
InputGradients maxPoolBackward(const BackwardArgs &args);
/// AveragePool (PoolGrad.cpp): dY / count to each window element inside the input, count as in the
/// forward (count_include_pad).
InputGradients averagePoolBackward(const BackwardArgs &args);
/// GlobalAveragePool (PoolGrad.cpp): dY / (spatial size) to every element of the plane.
InputGradients globalAveragePoolBackward(const BackwardArgs &args);
/// GlobalMaxPool (PoolGrad.cpp): dY to the first maximum (in row-major order) of each plane,
/// zeros elsewhere; on ties as PyTorch's CPU adaptive_max_pool2d / max_pool2d over the plane.
InputGradients globalMaxPoolBackward(const BackwardArgs &args);

/// Gemm (ElementwiseGrad.cpp): dL/dB (index 1) = alpha A'^T dY, transposed back with transB; and
/// dL/dC (index 2) = beta Σ_rows dY when C is a row bias (shape (cols) or (1, cols)).
InputGradients gemmWeightGradients(const BackwardArgs &args);

/// Relu (ElementwiseGrad.cpp): dY where Y > 0, else 0.
InputGradients reluBackward(const BackwardArgs &args);
/// Clip (ElementwiseGrad.cpp): dX = dY where min < x < max (strictly), else 0; the bounds as in
/// the forward (clipBounds), which get no gradient. Strict at the bounds as PyTorch's relu6 /
/// hardtanh backward, the usual source of an exported Clip (ReLU6 in MobileNetV2), and as
/// reluBackward at 0; torch.clamp's backward would pass dY at x == min or max.
InputGradients clipBackward(const BackwardArgs &args);
/// Add (ElementwiseGrad.cpp): dA = dY, dB = dY, each summed over the dimensions its input was
/// broadcast along (numpy broadcasting).
InputGradients addBackward(const BackwardArgs &args);
/// Sub (ElementwiseGrad.cpp): dA = dY, dB = -dY, each reduced to its input's shape as in Add.
InputGradients subBackward(const BackwardArgs &args);
/// Mul (ElementwiseGrad.cpp): dA = dY B, dB = dY A (A, B broadcast to Y's shape), each reduced
/// to its input's shape as in Add.
InputGradients mulBackward(const BackwardArgs &args);
/// Div (ElementwiseGrad.cpp): dA = dY / B, dB = -dY A / B^2 (A, B broadcast to Y's shape), each
/// reduced to its input's shape as in Add.
InputGradients divBackward(const BackwardArgs &args);
/// Gemm (ElementwiseGrad.cpp): dA = alpha dY B'^T (transposed back when transA); B and C are
/// treated as weights and get none.
InputGradients gemmBackward(const BackwardArgs &args);
/// MatMul, 2-D (ElementwiseGrad.cpp): dA = dY B^T, dB = A^T dY, both as input gradients. Also
/// MatMul's weight gradients: either operand may be an initializer (the caller keeps those).
InputGradients matMulBackward(const BackwardArgs &args);
/// Concat (ElementwiseGrad.cpp): dY split along `axis` into the inputs' extents.
InputGradients concatBackward(const BackwardArgs &args);
/// Slice (Slice.cpp): dY scattered into zeros of X's shape at the sliced positions.
InputGradients sliceBackward(const BackwardArgs &args);
/// Resize, nearest (Resize.cpp): each element of dY added to its source element of X (zeros
/// elsewhere); extrapolated elements contribute nothing.
InputGradients resizeBackward(const BackwardArgs &args);
/// Flatten, Reshape, Identity, Dropout (ElementwiseGrad.cpp): dY reshaped to X's shape.
InputGradients reshapeBackward(const BackwardArgs &args);

} // namespace nasc::ir::reference
