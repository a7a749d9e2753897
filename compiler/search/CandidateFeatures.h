// The features a search's cost model (CostModel.h) reads of a candidate: its neural steps, Conv by
// Conv, relative to the original network.
#pragma once

#include "compiler/nas/NeuralStep.h"
#include "ir/Graph.h"

#include <string>
#include <vector>

namespace nasc::search {

/// Encodes a candidate's steps as a fixed-length row of floats for the original network it was
/// made from. With R the registry's transformations in order (nas::neuralTransforms()), each
/// transformation t has a block of w_t = 1 + s_t + 2·l_t values (s_t its scalar parameters, l_t 1
/// when it has a list parameter):
///   [count, Σ log2(scalar 1), ..., Σ log2(scalar s_t), Σ log2(list length), Σ mean log2(entry)]
/// summed over the steps of t on one Conv (count: how many there are; 0 everywhere when none).
/// For today's registry: group [n, log2 G], depthwise [n], bottleneck [n, log2 B],
/// spatial_bottleneck [n, log2 S], seq1 [n, log2 p, mean log2 G_i], seq2 [n, log2 u, log2 G],
/// seq3 [n, log2 P]: W = Σ w_t = 15. The row, of width (1 + W)·N + W + 1 for N searchable
/// Convs:
///   - per searchable Conv i of the original (searchableConvs order): its FLOP share of the
///     original (the Conv's FLOP over the network's, nas::modelCost), then its W block values;
///   - the totals: Σ_i share_i × block_i, the W values weighted by each Conv's share;
///   - the number of Convs with steps (what the gate's per-layer tolerance scales with).
/// A function of the steps and the original only (no steps: the shares and zeros).
class CandidateFeatures {
public:
  /// For candidates of `original` (static shapes, ir::prepareForTraining).
  explicit CandidateFeatures(const ir::Graph &original);

  /// The row of `steps` (each on a searchable Conv of the original, as sampleCandidate draws
  /// them). Throws nasc::Error quoting a step whose node is not one of them, whose
  /// transformation is unknown or whose argument count it does not take.
  std::vector<float> operator()(const std::vector<nas::NeuralStep> &steps) const;

private:
  std::vector<std::string> convs_;
  std::vector<float> shares_;
};

} // namespace nasc::search
