// Fisher Potential (Theis et al. 2018, BlockSwap, Turner et al. 2020) of a CNN on one batch: the
// capacity measure that gates neural transformations (docs/capacity.md).
#pragma once

#include "ir/Graph.h"

#include <string>
#include <vector>

namespace nasc::nas {

/// Fisher Potential of one convolution layer.
struct LayerFisher {
  std::string conv;       ///< The layer's key: the value it produces (nas::layerOutput).
  std::string activation; ///< The value a (the Conv's or its BN's output).
  double value = 0;       ///< Σ_c Δ_c.
};

/// Per-layer values in the order of the Conv nodes in the graph, and their sum.
struct FisherPotential {
  std::vector<LayerFisher> layers;
  double total = 0;
};

/// The activation a of `conv` (a Conv node of `graph`): the output of the BatchNormalization that
/// reads the layer's output (nas::layerOutput: the Conv's, or the Concat's that joins the parts
/// of a seq1 / seq2 / seq3 layer) when one does, else the layer's output itself.
std::string fisherActivation(const ir::Graph &graph, const ir::Node &conv);

/// Fisher Potential of `graph` on `images` (N, C, H, W; N overrides the graph's batch size) with
/// integer `labels` (N entries): one training step (runtime/reference/Training.h: BN with batch
/// statistics, L = mean cross-entropy of the single output), then for every layer (a Conv node,
/// or the parts of one joined by a Concat, counted once) with activation a (N, C, ...) and
/// g = dL/da:
///   Δ_c = 1/(2N) Σ_n (Σ_{spatial} a[n,c,.] g[n,c,.])²,  layer = Σ_c Δ_c, total = Σ layers.
/// A layer whose activation does not reach the loss gets 0. Sums in double. Throws nasc::Error when
/// the graph has not exactly one input, and every error of runTrainingStep (unsupported op, bad
/// labels, ...).
FisherPotential fisherPotential(const ir::Graph &graph, const ir::Tensor &images,
                                const std::vector<int64_t> &labels);

} // namespace nasc::nas
