// Seeded re-initialisation of a model's weights for zero-cost proxies at initialisation.
#pragma once

#include "ir/Graph.h"

#include <cstdint>

namespace nasc::nas {

/// Replaces, by role, the initializers read by these nodes (others, e.g. Reshape shapes, stay):
///  - Conv W (K, C/group, k...): He normal with fan_out, N(0, 2 / (K · prod k)), as PyTorch's
///    kaiming_normal_(mode='fan_out', nonlinearity='relu') used by the Fisher Potential papers'
///    code (BlockSwap); Conv B: 0;
///  - Gemm B: He normal with fan_in = the inner dimension (B's dim 1 with transB, else dim 0),
///    N(0, 2 / fan_in); Gemm C: 0;
///  - BatchNormalization scale 1, B 0, input_mean 0, input_var 1.
/// The normals come from ir::standardNormals (WeightInit.h), seeded per tensor with `seed` and
/// the tensor's position in the order of first use by graph.nodes, so the values depend only on
/// `seed` and the graph. Throws nasc::Error naming the node when a Conv or Gemm weight of rank < 2
/// is found.
void initWeights(ir::Graph &graph, uint64_t seed);

} // namespace nasc::nas
