// synflow (Tanaka et al. 2020, as a zero-cost proxy in Abdelfattah et al. 2021): the data-free
// "synaptic flow" of a network with absolute weights (docs/capacity.md).
#pragma once

#include "compiler/nas/ZeroCostProxy.h"

namespace nasc::nas {

/// synflow of `graph`: a copy with every BatchNormalization replaced by the identity (the
/// reference's bn=False model), every float32 initializer replaced by its absolute value, run on an
/// all-ones input of the graph input's shape with batch 1; R = Σ output; per Conv node with weight
/// W the value Σ |W ⊙ dR/dW|, total = Σ layers (Abdelfattah et al. 2021, computed there in
/// float64). Here the passes run in float32 on scaleForSynflow's copy, whose values stay at most
/// about 1 however deep the network, and each layer's value is that copy's times λ_output in
/// double: finite up to ln synflow = 709 (all values are non-negative, so there is no
/// cancellation; a float32 relative error of about 1e-6 per layer). Throws nasc::Error when the
/// graph has not exactly one input of known rank >= 1, when a value exceeds the double range, and
/// every error of scaleForSynflow and runtime::runForwardBackward.
ProxyScore synflow(const ir::Graph &graph);

} // namespace nasc::nas
