#include "compiler/nas/FisherPotential.h"

#include "compiler/nas/ConvLayer.h"
#include "ir/Error.h"
#include "runtime/reference/Training.h"

#include <algorithm>

namespace nasc::nas {

namespace {

double layerFisher(const ir::Tensor &a, const ir::Tensor &g) {
  const int64_t batch = a.shape[0], channels = a.shape[1];
  const int64_t plane = a.size() / std::max<int64_t>(batch * channels, 1);
  double layer = 0;
  for (int64_t c = 0; c < channels; ++c) {
    double delta = 0;
    for (int64_t n = 0; n < batch; ++n) {
      double inner = 0;
      const int64_t offset = (n * channels + c) * plane;
      for (int64_t k = 0; k < plane; ++k)
        inner += static_cast<double>(a.f[offset + k]) * g.f[offset + k];
      delta += inner * inner;
    }
    layer += delta / (2.0 * static_cast<double>(batch));
  }
  return layer;
}

} // namespace

std::string fisherActivation(const ir::Graph &graph, const ir::Node &conv) {
  const std::string &output = layerOutput(graph, conv);
  for (size_t consumer : graph.consumersOf(output))
    if (graph.nodes[consumer].op_type == "BatchNormalization" &&
        graph.nodes[consumer].inputs.at(0) == output)
      return graph.nodes[consumer].outputs.at(0);
  return output;
}

FisherPotential fisherPotential(const ir::Graph &graph, const ir::Tensor &images,
                                const std::vector<int64_t> &labels) {
  if (graph.inputs.size() != 1)
    throw Error(graph.source + ": the Fisher Potential needs exactly one graph input, got " +
                std::to_string(graph.inputs.size()));
  const runtime::TrainingStep step =
      runtime::runTrainingStep(graph, {{graph.inputs[0], images}}, labels);
  FisherPotential result;
  for (const ir::Node &node : graph.nodes) {
    if (node.op_type != "Conv")
      continue;
    LayerFisher layer{layerOutput(graph, node), fisherActivation(graph, node), 0.0};
    if (std::any_of(result.layers.begin(), result.layers.end(),
                    [&](const LayerFisher &seen) { return seen.conv == layer.conv; }))
      continue;
    auto gradient = step.gradients.find(layer.activation);
    if (gradient != step.gradients.end())
      layer.value = layerFisher(step.values.at(layer.activation), gradient->second);
    result.total += layer.value;
    result.layers.push_back(std::move(layer));
  }
  return result;
}

} // namespace nasc::nas
