// Hand-built Kernels for codegen tests: GEMM, padded convolution, global max pooling.
#pragma once

#include "ir/Kernel.h"

#include <cstdint>

namespace nasc::test {

/// C[M,N] += A[M,K] · B[K,N] as one statement S0 (Update::Add, k a reduction dimension).
/// Tensors: 0 A, 1 B, 2 C. Iterator order (i, j, k), or (i, k, j) if `reductionOutside`
/// (then the innermost loop walks rows of B and C with stride 1).
ir::Kernel gemmAccumulate(int64_t m, int64_t n, int64_t k, bool reductionOutside);

/// C[M,N] = A[M,K] · B[K,N] as two statements: S0 `C = 0` over (i, j), then S1 `C += A·B`
/// over (i, j, k). Tensors: 0 A, 1 B, 2 C.
ir::Kernel gemmWithInit(int64_t m, int64_t n, int64_t k);

/// Geometry of a 2-d convolution over NCHW input and OIHW weights, symmetric padding.
struct ConvShape {
  int64_t n = 1, c = 3, h = 8, w = 8, k = 4, r = 3, s = 3, stride = 1, pad = 1;
  int64_t oh() const { return (h + 2 * pad - r) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - s) / stride + 1; }
};

/// O[n,k,oh,ow] = B[k] + Σ_{c,r,s} I[n,c,oh·st+r-pad, ow·st+s-pad] · W[k,c,r,s], with the
/// padding as domain constraints on S1 (out-of-range input points are skipped).
/// Tensors: 0 I, 1 W, 2 B, 3 O. S1's iterators are (n,k,oh,ow,c,r,s), or (n,k,c,r,s,oh,ow)
/// if `spatialInnermost` (so the innermost loop runs along a row of O and I).
ir::Kernel conv2dBias(const ConvShape &shape, bool spatialInnermost);

/// Y[n,c] = max_{h,w} X[n,c,h,w]: S0 `Y = -inf`, S1 `Y max= X` (Update::Max).
/// Tensors: 0 X, 1 Y.
ir::Kernel globalMaxPool(int64_t n, int64_t c, int64_t h, int64_t w);

} // namespace nasc::test
