// The polyhedral form of group(G) (Turner et al., ASPLOS 2021, §4.2): the reduction statement of
// a dense convolution, rewritten with isl. Output channels k become (g, k'), input channels c
// become (g', c'), and only g = g' is kept:
//   before  S[n, k, o..., c, r...]      : O[n, k, o...] += I[n, c, ...] · W[k, c, r...]
//   after   S[n, g, k', o..., c', r...] : O[n, g·K/G + k', o...] += I[n, g·C/G + c', ...]
//                                                                  · W'[g·K/G + k', c', r...]
#pragma once

#include "ir/Graph.h"
#include "ir/Kernel.h"
#include "polyhedral/Scop.h"

#include <cstdint>
#include <map>
#include <string>

namespace nasc::nas {

/// Iteration domains and access relations of a kernel (a Scop without its schedule).
struct ScopRelations {
  isl::union_set domain;
  isl::union_map reads, writes;
};

/// group(G) of the convolution kernel `kernel` (ir::lowerGraph of a Conv with group 1; `scop` its
/// buildScop): the statement whose iterators hold "k" and "c" (the reduction) is rewritten, the
/// others (bias, residual, Relu over the output) stay. With M the multi_aff
/// S[n, g, k', o..., c', r...] -> S[n, g·K/G + k', o..., g·C/G + c', r...]:
///  - domain: preimage of the old domain under M, with 0 <= g < G, 0 <= k' < K/G, 0 <= c' < C/G;
///  - reads and writes: pulled back through M; the read of the weight `weight` is then composed
///    with the packing W[k, c, r...] -> W'[k, c − floor(k / (K/G))·C/G, r...] of its diagonal
///    blocks into the grouped weight (K, C/G, r...).
/// The iterators of the new statement are named n, g, kg, o..., cg, r... as ir::lowerGraph names a
/// grouped Conv's. Throws nasc::Error when the kernel has no dense reduction statement, or when G
/// does not divide C and K.
ScopRelations groupScop(const ir::Kernel &kernel, const poly::Scop &scop,
                        const std::string &weight, int64_t G);

/// The reduction statement of Conv node `node` before and after group(G), both checked with
/// checkInsideTensors.
struct GroupRewrite {
  ScopRelations dense, grouped;
};

/// Lowers a copy of `graph` (static shapes; ir::prepareForInference, ir::lowerGraph), builds in
/// `ctx` the Scop of the kernel implementing Conv `node` (which must have group 1), rewrites it
/// with groupScop and checks its accesses against the grouped weight (K, C/G, k...). Throws
/// nasc::Error when no kernel implements `node`, and the errors of groupScop and
/// checkInsideTensors.
GroupRewrite groupRewrite(isl::ctx ctx, const ir::Graph &graph, const std::string &node,
                          int64_t G);

/// Checks that every access of `relations` stays inside its tensor: the range of the reads and
/// writes of tensor t is a subset of the box 0 <= i_d < shapes[t][d]. Throws nasc::Error naming
/// the tensor and the out-of-bounds accesses in isl notation otherwise.
void checkInsideTensors(const ScopRelations &relations,
                        const std::map<std::string, ir::Shape> &shapes);

} // namespace nasc::nas
