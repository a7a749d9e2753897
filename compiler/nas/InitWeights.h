// Seeded re-initialisation of a model's weights for zero-cost proxies at initialisation.
#pragma once

#include "ir/Graph.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace nasc::nas {

/// He-normal tensors initWeights has drawn, by (tensor seed, element count, fan), which determine
/// them: a later initWeights with this cache copies a tensor with the same key instead of drawing
/// it again (the values are identical). Until frozen, tensors drawn are added; frozen, it is only
/// read (a gate fills it with the original's tensors, then candidates reuse those of their layers
/// that did not change). Safe to share between threads.
class HeNormalCache {
public:
  using Key = std::tuple<uint64_t, size_t, int64_t>;

  /// Copies the tensor of `key` into `values` and returns true, or returns false.
  bool find(const Key &key, std::vector<float> &values) const;
  /// Adds `values` under `key` unless frozen.
  void add(const Key &key, const std::vector<float> &values);
  /// Stops adding.
  void freeze();

private:
  mutable std::mutex mutex_;
  std::map<Key, std::vector<float>> tensors_;
  bool frozen_ = false;
};

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
/// is found. With `cache`, He-normal tensors are taken from it when there and added to it
/// otherwise (HeNormalCache).
void initWeights(ir::Graph &graph, uint64_t seed, HeNormalCache *cache = nullptr);

} // namespace nasc::nas
