// bottleneck(B) of a convolution (Turner et al., ASPLOS 2021, §4.2): its output channel domain
// shrinks from K to K/B, and the input channel domains of its consumers follow.
#pragma once

#include "ir/Graph.h"

#include <cstdint>
#include <string>

namespace nasc::nas {

/// bottleneck(B) of Conv `node` with `group` G: keeps, in each of its G groups, the first
/// K/(B·G) output channels (W rows and B entries), and follows the narrower value through its
/// consumers: BatchNormalization (parameters of the kept channels), the ops marked
/// ir::OpDef::perChannel (Relu, Clip, Identity, Dropout, MaxPool, AveragePool,
/// GlobalAveragePool, GlobalMaxPool), a Conv with group 1 (its W keeps the matching input channels:
/// its C domain shrinks to K/B), and Flatten (axis 1) into Gemm (B keeps the matching features).
/// Throws RefusedTransformation when K/(B·G) is not a positive integer, and when the value reaches
/// a graph output, a grouped Conv, or any other consumer (e.g. a residual Add or a Concat, whose
/// other branches would keep K channels), naming that node.
void bottleneck(ir::Graph &graph, const std::string &node, int64_t B);

} // namespace nasc::nas
