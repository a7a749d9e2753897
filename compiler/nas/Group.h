// group(G) and depthwise of a convolution (Turner et al., ASPLOS 2021, §4.2): output channels k
// split into (g, k'), input channels c into (g', c'), only g = g' kept.
#pragma once

#include "ir/Graph.h"

#include <cstdint>
#include <string>

namespace nasc::nas {

/// group(G) of Conv `node`: its `group` attribute becomes group·G. W (K, C/group, k...) becomes
/// (K, C/(group·G), k...): output channel k, in new group g = k / (K/(group·G)), keeps the input
/// channels g·C/(group·G) + c' of its old slice (the diagonal blocks of the old weight). FLOP and
/// parameters of W are divided by G; B and X / Y shapes are unchanged. Throws
/// RefusedTransformation when group·G does not divide C and K.
void group(ir::Graph &graph, const std::string &node, int64_t G);

/// depthwise of Conv `node`: group(C / group), i.e. one input channel per group, with channel
/// multiplier K / C. Throws RefusedTransformation when C does not divide K.
void depthwise(ir::Graph &graph, const std::string &node);

} // namespace nasc::nas
