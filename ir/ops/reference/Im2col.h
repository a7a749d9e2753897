// Column matrices of convolution windows (Conv.cpp), shared by the Conv forward and its gradients.
#pragma once

#include "ir/ops/reference/ConvGeometry.h"

#include <Eigen/Core>

namespace nasc::ir::reference {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Column matrix (channels * kernel size) x (output size) of `channels` input planes starting at
/// `x`, rows ordered (channel, r0, r1, r2) like a Conv weight's trailing dimensions; zero where a
/// window reads padding.
RowMatrix im2col(const float *x, int64_t channels, const Window3 &w);

} // namespace nasc::ir::reference
