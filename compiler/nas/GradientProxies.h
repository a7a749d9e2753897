// snip and grad_norm: zero-cost proxies from the Conv weight gradients of one training step
// (Abdelfattah et al. 2021, "Zero-Cost Proxies for Lightweight NAS"; docs/capacity.md).
#pragma once

#include "compiler/nas/ZeroCostProxy.h"

namespace nasc::nas {

/// grad_norm of `graph` on `images` (N, C, H, W) with `labels`: one training step as
/// fisherPotential (BN with batch statistics, L = mean cross-entropy), then per Conv node with
/// weight W the L2 norm ||dL/dW||_2; total = Σ layers. A Conv whose weight is not an initializer or
/// does not reach the loss gets 0. Throws nasc::Error when the graph has not exactly one input, and
/// every error of runtime::runTrainingStep.
ProxyScore gradNorm(const ir::Graph &graph, const ir::Tensor &images,
                    const std::vector<int64_t> &labels);

/// snip (Lee et al. 2019, as in Abdelfattah et al. 2021): the same step, per Conv node Σ |W ⊙
/// dL/dW|; total = Σ layers. Same errors as gradNorm.
ProxyScore snip(const ir::Graph &graph, const ir::Tensor &images,
                const std::vector<int64_t> &labels);

} // namespace nasc::nas
