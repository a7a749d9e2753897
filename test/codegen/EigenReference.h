// Independent reference values for codegen tests, computed with Eigen (no nasc code involved).
#pragma once

#include "TestKernels.h"

#include <cstdint>
#include <vector>

namespace nasc::test {

/// A[M,K] · B[K,N], row-major in and out (Eigen::MatrixXf product).
std::vector<float> eigenGemm(const std::vector<float> &a, const std::vector<float> &b, int64_t m,
                             int64_t n, int64_t k);

/// Convolution NCHW ⊛ OIHW + bias through im2col: per image, the (C·R·S) × (OH·OW) patch
/// matrix (zeros where the window leaves the padded input) times the K × (C·R·S) weights.
std::vector<float> eigenConv2dBias(const std::vector<float> &input,
                                   const std::vector<float> &weights,
                                   const std::vector<float> &bias, const ConvShape &shape);

/// max over (h, w) of X[n, c, h, w] via Eigen's maxCoeff, one value per (n, c).
std::vector<float> eigenGlobalMax(const std::vector<float> &x, int64_t n, int64_t c, int64_t h,
                                  int64_t w);

} // namespace nasc::test
