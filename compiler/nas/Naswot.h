// jacob_cov: NASWOT (Mellor et al. 2021, "Neural Architecture Search without Training", the
// hook_logdet score), a whole-network zero-cost proxy (docs/capacity.md).
#pragma once

#include "compiler/nas/ZeroCostProxy.h"

namespace nasc::nas {

/// NASWOT of `graph` on `images` (N, C, H, W): the training-mode forward pass (BN with batch
/// statistics); for every Relu node with output y, the binary codes c_n = (y[n] > 0) of the N
/// images; K = Σ_Relu c c^T + (1 - c)(1 - c)^T (N x N, in double); total = log|det K| (-inf when K
/// is singular). `layers` is empty: the log-determinant does not split into per-layer terms. Throws
/// nasc::Error when the graph has not exactly one input or has no Relu, and every error of
/// runtime::runTrainingForward.
ProxyScore naswot(const ir::Graph &graph, const ir::Tensor &images);

} // namespace nasc::nas
