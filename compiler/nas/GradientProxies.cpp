#include "compiler/nas/GradientProxies.h"

#include "ir/Error.h"
#include "runtime/reference/Training.h"

#include <cmath>
#include <functional>

namespace nasc::nas {

namespace {

using LayerValue = std::function<double(const ir::Tensor &w, const ir::Tensor &dw)>;

ProxyScore weightGradientProxy(const ir::Graph &graph, const ir::Tensor &images,
                               const std::vector<int64_t> &labels, const LayerValue &value) {
  if (graph.inputs.size() != 1)
    throw Error(graph.source + ": gradient proxies need exactly one graph input, got " +
                std::to_string(graph.inputs.size()));
  const runtime::TrainingStep step =
      runtime::runTrainingStep(graph, {{graph.inputs[0], images}}, labels, true);
  ProxyScore score;
  for (const ir::Node &node : graph.nodes) {
    if (node.op_type != "Conv")
      continue;
    LayerScore layer{node.outputs.at(0), 0.0};
    auto gradient = step.weightGradients.find(node.inputs.at(1));
    if (gradient != step.weightGradients.end())
      layer.value = value(graph.initializers.at(node.inputs[1]), gradient->second);
    score.total += layer.value;
    score.layers.push_back(std::move(layer));
  }
  return score;
}

} // namespace

ProxyScore gradNorm(const ir::Graph &graph, const ir::Tensor &images,
                    const std::vector<int64_t> &labels) {
  return weightGradientProxy(graph, images, labels, [](const ir::Tensor &, const ir::Tensor &dw) {
    double sum = 0;
    for (float g : dw.f)
      sum += static_cast<double>(g) * g;
    return std::sqrt(sum);
  });
}

ProxyScore snip(const ir::Graph &graph, const ir::Tensor &images,
                const std::vector<int64_t> &labels) {
  return weightGradientProxy(graph, images, labels, [](const ir::Tensor &w, const ir::Tensor &dw) {
    double sum = 0;
    for (size_t i = 0; i < w.f.size(); ++i)
      sum += std::fabs(static_cast<double>(w.f[i]) * dw.f[i]);
    return sum;
  });
}

} // namespace nasc::nas
