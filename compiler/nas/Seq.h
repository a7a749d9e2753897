// The paper's sequences that split a convolution's output channels into parts with their own
// group counts (Turner et al., ASPLOS 2021, §4.3): seq1 (equal parts, a group count each) and
// seq2 (peel u dense output channels, group the rest). Each part is a Conv over all of X; a
// Concat on the channel axis joins them into the original output.
#pragma once

#include "ir/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nasc::nas {

/// seq1(G_1, ..., G_p) of Conv `node` (group 1): output channels [i·K/p, (i+1)·K/p) become Conv
/// `<node>_part<i>` with W rows and B entries of those channels, then group(G_i) (Group.h); a
/// Concat (axis 1) of the parts produces the original output value. FLOP and W parameters become
/// Σ_i (K/p)·(C/G_i)·Πk per output position. Throws RefusedTransformation when the Conv is
/// grouped, p does not divide K, or a G_i does not divide C and K/p.
void seq1(ir::Graph &graph, const std::string &node, const std::vector<int64_t> &groups);

/// seq2(u, G) of Conv `node` (group 1): the first u output channels stay a dense Conv, the other
/// K − u become a Conv with group G, joined as in seq1. Throws RefusedTransformation when the Conv
/// is grouped, u is not in [1, K), or G does not divide C and K − u.
void seq2(ir::Graph &graph, const std::string &node, int64_t u, int64_t G);

} // namespace nasc::nas
