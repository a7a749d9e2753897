// The polyhedral form of group(G) (Turner et al., ASPLOS 2021, §4.2): the reduction statement of
// a dense convolution, rewritten with isl. Output channels k become (g, k'), input channels c
// become (g', c'), and only g = g' is kept:
//   before  S[n, k, o..., c, r...]      : O[n, k, o...] += I[n, c, ...] · W[k, c, r...]
//   after   S[n, g, k', o..., c', r...] : O[n, g·K/G + k', o...] += I[n, g·C/G + c', ...]
//                                                                  · W'[g·K/G + k', c', r...]
#pragma once

#include "compiler/nas/NeuralScop.h"

#include <cstdint>
#include <string>

namespace nasc::nas {

/// group(G) of the convolution kernel `kernel` (ir::lowerGraph of a Conv with group 1; `scop` its
/// buildScop): rewriteChannels (NeuralScop.h) of its reduction statement with the part {0, K, G},
/// the weight `weight` packed into the grouped weight (K, C/G, r...) under the same name. The
/// other statements (bias, residual, Relu over the output) stay. The iterators of the new
/// statement are named n, g, kg, o..., cg, r... as ir::lowerGraph names a grouped Conv's. Throws
/// nasc::Error when the kernel has no dense reduction statement, or when G does not divide C and K.
ScopRelations groupScop(const ir::Kernel &kernel, const poly::Scop &scop, const std::string &weight,
                        int64_t G);

/// Lowers a copy of `graph` (static shapes; lowerForInference), builds in `ctx` the Scop of the
/// kernel implementing Conv `node` (which must have group 1), rewrites it with groupScop and checks
/// its accesses against the grouped weight (K, C/G, k...). Returns the reduction statement before
/// and after, labelled `node`. Throws nasc::Error when no kernel implements `node`, and the errors
/// of groupScop and checkInsideTensors.
ScopRewrite groupRewrite(isl::ctx ctx, const ir::Graph &graph, const std::string &node, int64_t G);

} // namespace nasc::nas
