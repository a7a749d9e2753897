// The per-layer unit a search measures (docs/search.md, "Measuring"): one Conv as it is in a
// candidate network, with its shape after the neural steps, compiled and timed alone. Layers of
// the same shape are measured once, and their records are shared by every candidate.
#pragma once

#include "ir/Graph.h"

#include <string>
#include <vector>

namespace nasc::search {

/// One Conv of a network as a graph of its own: x (the Conv's input shape) -> Conv (its
/// attributes and weight; its bias, or zeros as a folded BatchNormalization gives) -> Relu -> y,
/// inference-ready; `key` names what determines its speed:
/// "Conv x=1x64x32x32 w=64x32x3x3 group=2 strides=1,1 pads=1,1,1,1 dilations=1,1".
struct ConvWorkload {
  std::string node; ///< The Conv's name in the network.
  std::string key;
  ir::Graph graph;
};

/// The workload of every Conv node of `graph` (static shapes), in graph order. Throws nasc::Error
/// for a Conv whose weight is not an initializer.
std::vector<ConvWorkload> convWorkloads(const ir::Graph &graph);

} // namespace nasc::search
