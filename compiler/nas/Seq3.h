// The paper's third sequence (Turner et al., ASPLOS 2021, §4.3): a convolution's output rows are
// split into strips, each computed by its own convolution with its own weights from the input
// rows it needs (its halo included).
#pragma once

#include "ir/Graph.h"

#include <cstdint>
#include <string>

namespace nasc::nas {

/// seq3(P) of Conv `node` (input X (N, C, H, ...), output Y (N, K, OH, ...), stride s, dilation d,
/// kernel height R, top padding p along H): output rows [i·OH/P, (i+1)·OH/P) become Conv
/// `<node>_strip<i>` with its own copy of W and B (so W's parameters × P, FLOP unchanged). Strip
/// i reads input rows [lo_i, hi_i) = [max(0, a·s − p), min(H, (b−1)·s − p + (R−1)·d + 1)) for
/// its rows [a, b), taken by a Slice on axis 2 (none when that is all of X), and pads along H by
/// what lies outside X (lo_i − (a·s − p) on top, the rest at the bottom), so the halos between
/// strips are the rows both neighbours read. A Concat on axis 2 joins the strips into Y. The
/// weights are copies, so the strips compute Y exactly until they are trained apart. Throws
/// RefusedTransformation when P < 2, the Conv has no spatial dim, or P does not divide OH.
void seq3(ir::Graph &graph, const std::string &node, int64_t P);

} // namespace nasc::nas
