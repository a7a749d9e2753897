// synflow (Tanaka et al. 2020, as a zero-cost proxy in Abdelfattah et al. 2021): the data-free
// "synaptic flow" of a network with absolute weights (docs/capacity.md).
#pragma once

#include "compiler/nas/ZeroCostProxy.h"

namespace nasc::nas {

/// synflow of `graph` as natural logarithms: a copy with every BatchNormalization replaced by the
/// identity (the reference's bn=False model), every float32 initializer replaced by its absolute
/// value, run on an all-ones input of the graph input's shape with batch 1; R = Σ output; per Conv
/// node with weight W the layer value ln S_l, S_l = Σ |W ⊙ dR/dW|, and total = ln Σ_l S_l
/// (Abdelfattah et al. 2021 compute S_l in float64 and sum them). Here the passes run in float32
/// on scaleForSynflow's copy, whose values stay at most about 1 however deep the network, and
/// ln S_l = ln(Σ |W̃ ⊙ dR̃/dW̃|) + logOutputScale in double, the total by log-sum-exp: nothing is
/// exponentiated, so the values are finite on any network (all values are non-negative, so there
/// is no cancellation; a float32 relative error of about 1e-6 per layer, 1e-6 absolute in ln). A
/// layer with S_l = 0 (no gradient, or no flow through it) is −infinity and adds nothing to the
/// total; a network whose layers are all 0 (or that has no Conv) has total −infinity. Throws
/// nasc::Error when the graph has not exactly one input of known rank >= 1, and every error of
/// scaleForSynflow and runtime::runForwardBackward.
ProxyScore synflow(const ir::Graph &graph);

} // namespace nasc::nas
