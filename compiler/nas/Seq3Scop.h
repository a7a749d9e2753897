// The polyhedral form of seq3(P) (Seq3.h): the output-row domain of a dense convolution's
// reduction statement is split at the strip boundaries, and strip i (rows [a_i, b_i)) multiplies
// by its own copy W_i of the weight; its input access is unchanged on the whole X, so the rows
// that neighbouring strips both read (the halo) are those both accesses reach (2-d shown):
//   S_i[n, k, oh, ow, c, r, s] : a_i <= oh < b_i :
//     Y[n, k, oh, ow] += X[n, c, oh·sh − pt + r·dh, ow·sw − pl + s·dw] · W_i[k, c, r, s]
// Y is the original output, which the graph form computes as strips Y_i joined by a Concat, each
// strip reading its rows of X through a Slice.
#pragma once

#include "compiler/nas/NeuralScop.h"
#include "compiler/nas/NeuralStep.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nasc::nas {

/// One strip of a seq3 split: output rows [begin, end) and the kernel tensor name of its weight
/// W_i (K, C, r...): ir::toIdentifier of the strip's initializer, as ir::lowerGraph names it.
struct Seq3Strip {
  int64_t begin = 0, end = 0;
  std::string weight;
};

/// seq3 of the convolution kernel `kernel` (ir::lowerGraph of a Conv with group 1; `scop` its
/// buildScop; `weight` its W): for each strip, the reduction statement alone with its domain
/// intersected with begin <= o_1 < end (o_1 the first output iterator, oh), its accesses to W
/// renamed to the strip's weight (rewriteStatement with the identity). Each strip keeps the
/// statement's name (each is its own kernel in the graph form). Throws nasc::Error when the
/// strips do not tile the output rows [0, O_1) in order.
std::vector<ScopRelations> seq3Scop(const ir::Kernel &kernel, const poly::Scop &scop,
                                    const std::string &weight,
                                    const std::vector<Seq3Strip> &strips);

/// The strips that nas::applyNeuralStep(graph, {node, "seq3", {P}}) creates: the Convs that its
/// Concat joins, in order, with their output rows and weight names. Throws RefusedTransformation
/// when the graph change is refused.
std::vector<Seq3Strip> seq3Strips(const ir::Graph &graph, const std::string &node, int64_t P);

/// seq3(P) of Conv `node` of `graph` (static shapes, ir::prepareForTraining): seq3Scop of its
/// kernel (lowerForInference) with seq3Strips, each strip checked with checkInsideTensors (W_i of
/// W's shape). Returns per strip the dense reduction statement restricted to the strip's rows,
/// and the strip, labelled "strip i: rows [a, b)". Throws RefusedTransformation when the graph
/// change is refused, and the errors of seq3Scop (nasc::Error for a grouped Conv).
std::vector<ScopRewrite> seq3Rewrite(isl::ctx ctx, const ir::Graph &graph, const std::string &node,
                                     int64_t P);

} // namespace nasc::nas
