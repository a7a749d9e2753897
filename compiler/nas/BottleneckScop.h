// The polyhedral form of bottleneck(B) (Turner et al., ASPLOS 2021, §4.2): a domain intersection.
// The producer convolution's statements keep k < K/B, the reduction statement of every consumer
// convolution keeps c < K/B; no access changes, the tensors indexed by those iterators shrink:
//   producer  S[n, k, o..., c, r...] : k < K/B    O (N, K/B, o...), W (K/B, C, r...), B (K/B)
//   consumer  T[n, k, o..., c, r...] : c < K/B    I (N, K/B, ...),  V (K2, K/B, r...)
#pragma once

#include "compiler/nas/NeuralScop.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nasc::nas {

/// `scop` with every statement that has iterator `iterator` restricted to
/// iterator < extent, and the accesses restricted to the new domain. Producer: ("k", K/B);
/// consumer: ("c", K/B).
ScopRelations narrowScop(const poly::Scop &scop, const std::string &iterator, int64_t extent);

/// The shapes of `kernel`'s tensors with every dimension that an access indexes by `iterator`
/// (a non-zero coefficient) shrunk to `extent`: the shapes the accesses of narrowScop must fit.
std::map<std::string, ir::Shape> narrowShapes(const ir::Kernel &kernel, const std::string &iterator,
                                              int64_t extent);

/// bottleneck(B) of Conv `node` of `graph` (static shapes, ir::prepareForTraining), group 1: the
/// producer's kernel narrowed to k < K/B and each consumer Conv's kernel narrowed to c < K/B, k
/// and c the channel iterators of each kernel's reduction statement (findReduction; narrowScop
/// narrows every statement with an iterator of that name, as ir::lowerGraph names them)
/// (the Convs whose weight loses input channels in nas::applyNeuralStep, which also decides
/// legality), each checked with checkInsideTensors against narrowShapes. Returns their reduction
/// statements before and after, producer first, labelled "producer NODE" / "consumer NODE". Gemm
/// followers (behind Flatten) are not rewritten. Throws RefusedTransformation when the graph
/// change is refused (B not dividing K among others), nasc::Error when the Conv is grouped (its
/// statements are over kg, not k).
std::vector<ScopRewrite> bottleneckRewrite(isl::ctx ctx, const ir::Graph &graph,
                                           const std::string &node, int64_t B);

} // namespace nasc::nas
