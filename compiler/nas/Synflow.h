// synflow (Tanaka et al. 2020, as a zero-cost proxy in Abdelfattah et al. 2021): the data-free
// "synaptic flow" of a network with absolute weights (docs/capacity.md).
#pragma once

#include "compiler/nas/ZeroCostProxy.h"

namespace nasc::nas {

/// synflow of `graph`: a copy with every BatchNormalization replaced by the identity (the
/// reference's bn=False model), every float32 initializer replaced by its absolute value, run on an
/// all-ones input of the graph input's shape with batch 1; R = Σ output; per Conv node with weight
/// W the value Σ |W ⊙ dR/dW|, total = Σ layers. Computed in float32 (the reference uses float64;
/// all values are non-negative, so there is no cancellation). Throws nasc::Error when the graph has
/// not exactly one input of known rank >= 1, when R or a layer value is not finite (float32
/// overflow in a very deep network), and every error of runtime::runForwardBackward.
ProxyScore synflow(const ir::Graph &graph);

} // namespace nasc::nas
