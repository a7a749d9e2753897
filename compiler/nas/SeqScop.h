// The polyhedral form of seq1(G1, ..., Gp) and seq2(u, G) (Turner et al., ASPLOS 2021, §4.3): the
// output channel domain of a dense convolution's reduction statement is split at the part
// boundaries, and part i (channels [off_i, off_i + K_i), G_i groups, weight W_i) is grouped:
//   S_i[n, g, k', o..., c', r...] : O[n, off_i + g·K_i/G_i + k', o...] +=
//                                   I[n, g·C/G_i + c', ...] · W_i[g·K_i/G_i + k', c', r...]
// O is the original output, which the graph form computes as parts Y_i joined by a Concat.
#pragma once

#include "compiler/nas/NeuralScop.h"
#include "compiler/nas/NeuralStep.h"

#include <string>
#include <vector>

namespace nasc::nas {

/// One part of a seq1 / seq2 split: its output channels and groups, and the kernel tensor name of
/// its packed weight W_i (K_i, C/G_i, r...): ir::toIdentifier of the part's initializer, as
/// ir::lowerGraph names it.
struct SeqPart {
  ChannelPart channels;
  std::string weight;
};

/// seq of the convolution kernel `kernel` (ir::lowerGraph of a Conv with group 1; `scop` its
/// buildScop; `weight` its W): for each part, the reduction statement alone, rewritten by
/// rewriteChannels (NeuralScop.h) with the part's channels, W packed into the part's weight. Each
/// part keeps the statement's name (each is its own kernel in the graph form). Throws nasc::Error
/// when the parts do not tile [0, K) in order, and the errors of rewriteChannels.
std::vector<ScopRelations> seqScop(const ir::Kernel &kernel, const poly::Scop &scop,
                                   const std::string &weight, const std::vector<SeqPart> &parts);

/// The parts that nas::applyNeuralStep(graph, step) (a seq1 or seq2 of Conv `step.node`) creates:
/// the Convs that its Concat joins, in order, with their channel counts, groups and weight names.
/// Throws RefusedTransformation when the graph change is refused.
std::vector<SeqPart> seqParts(const ir::Graph &graph, const NeuralStep &step);

/// `step` (seq1 or seq2) of Conv `step.node` of `graph` (static shapes, ir::prepareForTraining):
/// seqScop of its kernel with seqParts, each part checked with checkInsideTensors (W_i of shape
/// (K_i, C/G_i, r...)). Returns per part the dense reduction statement restricted to the part's
/// channels, and the part, labelled "part i: channels [a, b), group G_i". Throws
/// RefusedTransformation when the graph change is refused, and the errors of seqScop.
std::vector<ScopRewrite> seqRewrite(isl::ctx ctx, const ir::Graph &graph, const NeuralStep &step);

} // namespace nasc::nas
