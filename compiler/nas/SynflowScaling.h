// Keeps synflow's forward and backward pass inside float32 on networks of any depth: a copy of the
// network in which every value is the original's divided by a known factor, a bound on its
// largest entry, so every value of the copy is at most about 1 (docs/capacity.md, "synflow").
#pragma once

#include "ir/Graph.h"

namespace nasc::nas {

/// A graph computing every value v of another as v / λ_v, λ_v > 0 known per value.
struct ScaledGraph {
  ir::Graph graph;
  double logOutputScale = 0; ///< ln λ of the single graph output.
};

/// The scaled copy of synflow's linearised `net` (every BatchNormalization an Identity of its X,
/// as the reference's bn=False model; every float initializer replaced by its absolute value),
/// run on an all-ones input of batch 1: every value is non-negative and Relu is the identity on
/// it. λ is a bound on a value's largest entry, ln λ = 0 for the graph inputs and initializers,
/// propagated in double in log space (W, B, C below their absolute values), together with a
/// profile per value: a bound p_c <= 1 of each channel's (dim 1's) largest entry relative to λ
/// (all 1 where none is known). The profile keeps the bound tight where channels differ in scale
/// (a DenseNet's Concats of early and late features): with the single largest channel for every
/// channel, the bound grows a factor too large per layer, and on DenseNet-161 the copy's values
/// underflowed float32 to 0.
///  - Conv(X, W, B): per output channel k, b_k = λ_X Σ_{c,r,s} W[k,c,r,s] p_c + B_k (c over k's
///    group), λ_Y = max b_k, p_k = b_k / λ_Y; Gemm(A, B, C): λ_Y = λ_A · m + max C (alpha · m +
///    beta · max C), m the largest sum of alpha·B' over one output column; the copy uses
///    W · λ_X / λ_Y and B / λ_Y (B · λ_A / λ_Y and C / λ_Y);
///  - Add: per channel b_c = Σ λ_v p_v,c over its operands; Concat along the channels: the
///    operands' λ_v p_v one after the other (along another axis: λ_Y = max λ_v); λ_Y = max b_c;
///    each input operand v is multiplied by λ_v / λ_Y (Reshape to (1, 1, 1, n), a 1x1 Conv with
///    that weight, Reshape back to (1, dims of v after the batch); an initializer operand is
///    scaled in its copy);
///  - the ops marked ir::OpDef::homogeneous (Relu, the pools, the reshaping ops, Identity,
///    Dropout, Slice, Resize) and BatchNormalization (the Identity): λ_Y = λ_X, the profile kept
///    by the per-channel ones and laid out channel-major by a Flatten / Reshape to (1, n);
///    Constant: λ = 1.
/// The copy holds the initializers its nodes read; Conv weights keep their names, Conv biases,
/// Gemm's B and C and an Add's / Concat's initializer operands get new ones; added nodes and
/// values are named "synflow_scale:<value>...". The copy's gradients w.r.t. the
/// scaled weights give synflow exactly: Σ W̃ ⊙ dR̃/dW̃ = (Σ W ⊙ dR/dW) / λ_output for every
/// layer. Throws nasc::Error naming the node for an op without a rule, a Conv / Gemm weight that
/// is not an initializer or is shared by several nodes, and a value without a known shape.
/// `net` needs a shape for every operand of an Add or Concat (a graph after ir::inferShapes).
ScaledGraph scaleForSynflow(const ir::Graph &net);

} // namespace nasc::nas
