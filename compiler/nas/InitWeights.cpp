#include "compiler/nas/InitWeights.h"

#include "ir/Error.h"
#include "ir/import/WeightInit.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace nasc::nas {

namespace {

/// Initializer assignment in the order of first use; each tensor is written once.
class Initializer {
public:
  Initializer(ir::Graph &graph, uint64_t seed, HeNormalCache *cache)
      : graph_(graph), seed_(seed), cache_(cache) {}

  void normal(const ir::Node &node, size_t input, int64_t fan) {
    ir::Tensor *tensor = take(node, input);
    if (!tensor)
      return;
    const HeNormalCache::Key key{nextSeed(), tensor->f.size(), fan};
    if (cache_ && cache_->find(key, tensor->f))
      return;
    const double stddev = std::sqrt(2.0 / static_cast<double>(std::max<int64_t>(fan, 1)));
    const std::vector<double> normals = ir::standardNormals(tensor->f.size(), std::get<0>(key));
    for (size_t k = 0; k < normals.size(); ++k)
      tensor->f[k] = static_cast<float>(stddev * normals[k]);
    if (cache_)
      cache_->add(key, tensor->f);
  }

  void constant(const ir::Node &node, size_t input, float value) {
    if (ir::Tensor *tensor = take(node, input))
      std::fill(tensor->f.begin(), tensor->f.end(), value);
  }

  /// The float initializer read as input `input` of `node`, unless absent or already written.
  ir::Tensor *take(const ir::Node &node, size_t input) {
    if (input >= node.inputs.size() || done_.count(node.inputs[input]))
      return nullptr;
    auto it = graph_.initializers.find(node.inputs[input]);
    if (it == graph_.initializers.end() || it->second.dtype != ir::DType::Float32)
      return nullptr;
    done_.insert(node.inputs[input]);
    return &it->second;
  }

private:
  uint64_t nextSeed() { return seed_ + 0x9E3779B97F4A7C15ull * ++count_; }

  ir::Graph &graph_;
  uint64_t seed_;
  HeNormalCache *cache_;
  uint64_t count_ = 0;
  std::set<std::string> done_;
};

const ir::Shape &weightShape(const ir::Graph &graph, const ir::Node &node) {
  auto it = graph.initializers.find(node.inputs.at(1));
  static const ir::Shape none;
  if (it == graph.initializers.end())
    return none;
  if (it->second.shape.size() < 2)
    throw Error(graph.source + ": " + node.describe() + ": weight " +
                ir::shapeToString(it->second.shape) + " has rank < 2");
  return it->second.shape;
}

} // namespace

bool HeNormalCache::find(const Key &key, std::vector<float> &values) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  auto it = tensors_.find(key);
  if (it == tensors_.end())
    return false;
  values = it->second;
  return true;
}

void HeNormalCache::add(const Key &key, const std::vector<float> &values) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!frozen_)
    tensors_.emplace(key, values);
}

void HeNormalCache::freeze() {
  const std::lock_guard<std::mutex> lock(mutex_);
  frozen_ = true;
}

void initWeights(ir::Graph &graph, uint64_t seed, HeNormalCache *cache) {
  Initializer init(graph, seed, cache);
  for (const ir::Node &node : graph.nodes) {
    if (node.op_type == "Conv") {
      const ir::Shape &w = weightShape(graph, node);
      if (!w.empty())
        init.normal(node, 1, ir::numElements(w) / w[1]);
      init.constant(node, 2, 0.0f);
    } else if (node.op_type == "Gemm") {
      const ir::Shape &b = weightShape(graph, node);
      if (!b.empty())
        init.normal(node, 1, node.getInt("transB", 0) != 0 ? b[1] : b[0]);
      init.constant(node, 2, 0.0f);
    } else if (node.op_type == "BatchNormalization") {
      const float values[] = {1.0f, 0.0f, 0.0f, 1.0f};
      for (size_t k = 0; k < 4; ++k)
        init.constant(node, k + 1, values[k]);
    }
  }
}

} // namespace nasc::nas
