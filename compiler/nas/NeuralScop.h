// Shared pieces of the polyhedral forms of the neural transformations (GroupScop.h,
// BottleneckScop.h, SeqScop.h, SpatialBottleneckScop.h, Seq3Scop.h): a kernel's domains and
// accesses, its dense convolution statement, the rewrite of a statement by a change of its
// iterators (isl preimage and pullback), the rewrite into a grouped part of its output channels,
// the element maps of copy kernels, and the check that every access stays inside its tensor.
#pragma once

#include "compiler/nas/ConvLayer.h"
#include "compiler/nas/NeuralStep.h"
#include "ir/Graph.h"
#include "ir/Kernel.h"
#include "ir/Program.h"
#include "polyhedral/Scop.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nasc::nas {

/// Iteration domains and access relations of a kernel (a Scop without its schedule).
struct ScopRelations {
  isl::union_set domain;
  isl::union_map reads, writes;
};

/// One statement of a kernel before and after a neural transformation, `after` checked with
/// checkInsideTensors. `label` says which (e.g. "conv1_part1: channels [4, 8), group 2").
struct ScopRewrite {
  std::string label;
  ScopRelations before, after;
};

/// The dense reduction statement of a lowered convolution, S[n, k, o..., c, r...] (ir::lowerGraph
/// of a Conv with group 1), and the positions of its output channel iterator k and input channel
/// iterator c.
struct Reduction {
  const ir::Statement *statement = nullptr;
  int k = 0, c = 0;

  /// Output channels K (the extent of k).
  int64_t K() const;
  /// Input channels C (the extent of c).
  int64_t C() const;
  /// Rank of the weight W (K, C, r...): 2 + the number of kernel iterators after c.
  unsigned weightRank() const;
};

/// The dense convolution statement of `kernel`, found from the kernel's own marking: an Add
/// update O[n, k, ...] += I[n, c, ...] · W[k, c, ...] whose channel indices are plain iterators,
/// c marked as a reduction iterator (ir::Statement::reduction) and k not. Throws nasc::Error
/// naming the kernel when there is none (e.g. a grouped Conv, whose output channel index is
/// g·K/G + kg).
Reduction findReduction(const ir::Kernel &kernel);

/// The name of the tensor W that the reduction statement `r` of `kernel` multiplies by (its second
/// load, W[k, c, r...]).
const std::string &weightOf(const ir::Kernel &kernel, const Reduction &r);

/// Output channels [offset, offset + count) of a dense convolution, computed with `groups` groups
/// (group(G) of the whole conv is {0, K, G}; a part of seq1 / seq2 is {off_i, K_i, G_i}).
struct ChannelPart {
  int64_t offset = 0, count = 0, groups = 1;
};

/// The statement of `relations` that `m` maps into (m's range tuple names it) rewritten by a change
/// of its iterators; m maps each point of the new statement (m's domain space, whose tuple keeps
/// the statement's name) to the old point it stands for:
///  - domain: the preimage of the old domain under m, intersected with `bounds` (a set in m's
///    domain space);
///  - reads and writes: pulled back through m, then through `tensors` (throughCopy): a map from
///    the elements of a tensor the old statement accesses to those of the tensor the new one
///    accesses instead (empty when the tensors stay).
/// Other statements stay. The result has equalities detected, is coalesced and has no redundant
/// constraints (the bounds that the preimage repeats), as isl prints it most simply. Throws
/// nasc::Error when `relations` has no statement of that name.
ScopRelations rewriteStatement(const ScopRelations &relations, const isl::multi_aff &m,
                               const isl::set &bounds, const isl::union_map &tensors);

/// `relations` (those of `kernel`'s Scop, or a part of them) with the reduction statement `r`
/// replaced by the channels `part` (rewriteStatement). With M the multi_aff
///   S[n, g, kg, o..., cg, r...] -> S[n, offset + g·count/G + kg, o..., g·C/G + cg, r...]
/// (without g, and with the iterators keeping their names k and c, when G = 1):
///  - domain: preimage of the old domain under M, with 0 <= g < G, 0 <= kg < count/G,
///    0 <= cg < C/G;
///  - reads and writes: pulled back through M; the access to tensor `weight` W (K, C, r...) then
///    composes with the packing W[k, c, r...] -> P[k − offset, c − floor((k −
///    offset)/(count/G))·C/G, r...] of the part's diagonal blocks into the tensor `packed` P
///    (count, C/G, r...).
/// The new statement keeps its name and is named like ir::lowerGraph names a Conv with group G.
/// Other statements stay. Throws nasc::Error when G does not divide C and count, or the part is
/// not inside [0, K).
ScopRelations rewriteChannels(const ScopRelations &relations, const Reduction &r,
                              const ChannelPart &part, const std::string &weight,
                              const std::string &packed);

/// `accesses` with every element in the domain of `copy` replaced by its image under `copy` (a
/// map between tensor elements, e.g. a Concat's copy Y_i[n, k, ...] -> Y[n, off_i + k, ...]);
/// the accesses to other elements unchanged.
isl::union_map throughCopy(const isl::union_map &accesses, const isl::union_map &copy);

/// The element map of a copy kernel (Slice, Concat, Resize: each statement writes one element
/// and loads one): { written element -> element it copies }, i.e. writes⁻¹ ∘ reads. Iterators
/// that only tie the two (Resize's source iterator s with d·s <= a·o + b <= d·s + d − 1) are
/// projected out.
isl::union_map copySources(const ScopRelations &copy);

/// The set space name[it_0, ..., it_{d−1}] of a statement, its dims named `iterators`.
isl::space statementSpace(isl::ctx ctx, const std::string &name,
                          const std::vector<std::string> &iterators);

/// The space of the elements of tensor `name` of rank `rank`: { name[i0, ..., i_{rank−1}] }.
isl::space tensorSpace(isl::ctx ctx, const std::string &name, unsigned rank);

/// The map { from[i...] -> to[f(i)...] } of `m` (a multi_aff on the points of `from`, a tensor's
/// elements or a statement's instances), its range replaced by the elements of tensor `to`.
isl::map tensorMap(isl::multi_aff m, const std::string &to);

/// No statements: empty domain, reads and writes (the "before" of a statement that a
/// transformation adds).
ScopRelations emptyRelations(isl::ctx ctx);

/// The domains and accesses of `scop`.
ScopRelations relationsOf(const poly::Scop &scop);

/// The domain of the statement named `name` in `relations`. Throws nasc::Error when there is none.
isl::set statementDomain(const ScopRelations &relations, const std::string &name);

/// `relations` restricted to the statement named `name`.
ScopRelations statementOnly(const ScopRelations &relations, const std::string &name);

/// { space : lo <= i_dim < hi }.
isl::set dimRange(const isl::space &space, int dim, int64_t lo, int64_t hi);

/// The kernel of `program` that implements graph node `node`. Throws nasc::Error when none does.
const ir::Kernel &kernelOf(const ir::Program &program, const std::string &node);

/// ir::lowerGraph of a copy of `graph` (static shapes) made ready for inference
/// (ir::prepareForInference: BatchNormalization folded, Relu fused into the Conv kernel).
ir::Program lowerForInference(ir::Graph graph);

/// One Conv that seq1, seq2 or seq3 made of a Conv: its layer in the transformed graph and the
/// shape of its output.
struct SplitPart {
  ConvLayer layer;
  ir::Shape output;
};

/// The parts (seq1, seq2) or strips (seq3) that `step` makes of its Conv in `graph`, in the order
/// of the Concat that joins them (applyNeuralStep decides the split and its refusals).
std::vector<SplitPart> splitParts(const ir::Graph &graph, const NeuralStep &step);

/// The shape of each of `kernel`'s tensors, by name.
std::map<std::string, ir::Shape> tensorShapes(const ir::Kernel &kernel);

/// Checks that every access of `relations` stays inside its tensor: the range of the reads and
/// writes of tensor t is a subset of the box 0 <= i_d < shapes[t][d]. Throws nasc::Error naming
/// the tensor and the out-of-bounds accesses in isl notation otherwise.
void checkInsideTensors(const ScopRelations &relations,
                        const std::map<std::string, ir::Shape> &shapes);

} // namespace nasc::nas
