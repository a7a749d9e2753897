// The polyhedral form of spatial_bottleneck(S) (SpatialBottleneck.h): the convolution's reduction
// statement moved onto the S-strided output domain by a preimage, and a new expansion statement
// that replicates each strided element S^d times (2-d shown):
//   before  S[n, k, oh, ow, c, r, s]   : Y[n, k, oh, ow] += I[n, c, oh·sh − pt + r·dh, ...]
//                                                          · W[k, c, r, s]
//   after   S[n, k, oh', ow', c, r, s] : Y_s[n, k, oh', ow'] += I[n, c, S·oh'·sh − pt + r·dh, ...]
//                                                              · W[k, c, r, s]
//           E[n, k, oh, ow]            : Y'[n, k, oh, ow] = Y_s[n, k, floor(oh/S), floor(ow/S)]
#pragma once

#include "compiler/nas/NeuralScop.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nasc::nas {

/// `relations` (those of a dense convolution kernel, or its reduction statement alone) with the
/// reduction statement `r` (iterators n, k, o_1..o_d, c, r...) on the S-strided output domain.
/// With M: S[n, k, o'..., c, r...] -> S[n, k, S·o'..., c, r...] (rewriteStatement):
///  - domain: the preimage of the old domain under M, with 0 <= o'_i < O_i/S;
///  - reads and writes: pulled back through M; those of the output `output` Y (N, K, O...) then
///    compose with Y[n, k, S·a...] -> Y_s[n, k, a...], Y_s being the tensor `strided`
///    (N, K, O/S...) (it may keep Y's name).
/// Throws nasc::Error when S < 1 or S does not divide an output extent O_i.
ScopRelations stridedScop(const ScopRelations &relations, const Reduction &r, int64_t S,
                          const std::string &output, const std::string &strided);

/// The expansion statement `name`[n, k, o...] (o named oh, ow for 2-d, as ir::lowerGraph names a
/// Conv's output iterators) over the box of `shape` (N, K, O...), each of
/// whose points writes `expanded`[n, k, o...] and reads `source`[n, k, floor(o/S)...]: the
/// nearest-neighbour Resize with scales [1, 1, S...] (asymmetric coordinates, floor) of `source`
/// (N, K, O/S...). Throws nasc::Error when `shape` has no O_i, S < 1 or S does not divide an O_i.
ScopRelations expansionScop(isl::ctx ctx, const std::string &name, const ir::Shape &shape,
                            int64_t S, const std::string &source, const std::string &expanded);

/// spatial_bottleneck(S) of Conv `node` of `graph` (static shapes, ir::prepareForTraining), group
/// 1: stridedScop of the reduction statement of its kernel (lowerForInference, so BN folded and
/// Relu fused: Y is the kernel's output), and expansionScop of the Resize that nas::applyNeuralStep
/// inserts (which also decides legality), its tensors named as ir::lowerGraph names them. Y_s is
/// the Resize's input when the kernel's output is the value the Resize now produces, else Y itself
/// at the strided shape (a chain the kernel does not fuse lies between). Each is checked with
/// checkInsideTensors (Y_s and the Resize's input of shape (N, K, O/S...)). Returns the reduction
/// statement before and after, labelled "strided NODE", then the expansion statement (named E;
/// nothing before), labelled "expansion RESIZE". Throws RefusedTransformation when the graph change
/// is refused, nasc::Error when the Conv is grouped.
std::vector<ScopRewrite> spatialBottleneckRewrite(isl::ctx ctx, const ir::Graph &graph,
                                                  const std::string &node, int64_t S);

} // namespace nasc::nas
