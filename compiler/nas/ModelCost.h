// FLOP and parameter counts of a model, per node: what a neural transformation saves.
#pragma once

#include "ir/Graph.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nasc::nas {

/// Cost of one node: FLOP of one run and trainable parameters.
struct NodeCost {
  std::string node, op;
  double flops = 0;   ///< FLOP, 2 per multiply-accumulate.
  int64_t params = 0; ///< Elements of the node's trainable initializers.
};

/// Per node (graph order, only nodes with FLOP or parameters) and in total.
struct ModelCost {
  std::vector<NodeCost> nodes;
  double flops = 0;
  int64_t params = 0;
};

/// FLOP and trainable parameters of `graph` (static shapes, ir::prepareForTraining), from each
/// op's ir::OpDef::flops and parameterInputs, counting as PyTorch's `parameters()` and the usual
/// multiply-accumulate convention (thop, the NAS papers):
///  - Conv, X (N, C, ...), W (K, C/G, k...), Y (N, K, o...): 2·N·K·Πo·(C/G)·Πk FLOP; W and B;
///  - Gemm, A (M, F), Y (M, P): 2·M·F·P FLOP; B and C;
///  - MatMul, A (M, K), B (K, N): 2·M·K·N FLOP; A and B when initializers;
///  - BatchNormalization: no FLOP (foldable into the Conv); scale and B (running mean and
///    variance are statistics, not parameters).
/// Other ops count nothing. Parameters are initializer elements; one read by several nodes is
/// counted once, at its first reader.
ModelCost modelCost(const ir::Graph &graph);

/// Trainable parameters (elements of W and B) of each convolution layer of `graph`, keyed by the
/// value the layer produces (layerOutput, ConvLayer.h): a Conv's own, or the sum over the Conv
/// parts of seq1 / seq2 / seq3 under their Concat's output, so a layer is matched across a
/// transformation by that name.
std::map<std::string, int64_t> convLayerWeights(const ir::Graph &graph);

/// Per layer of both `original` and `transformed` (convLayerWeights of two graphs) with original
/// weights, the fraction of them the transformed layer keeps: transformed / original (1 for a
/// layer a transformation left alone, below 1 for one it thinned, e.g. 1/G after group(G)).
std::map<std::string, double>
layerWeightFractions(const std::map<std::string, int64_t> &original,
                     const std::map<std::string, int64_t> &transformed);

} // namespace nasc::nas
