#include "compiler/nas/InsertBatchNorm.h"

#include "compiler/nas/ConvLayer.h"
#include "ir/Error.h"
#include "ir/passes/GraphEdit.h"

#include <algorithm>

namespace nasc::nas {

namespace {

bool feedsBatchNorm(const ir::Graph &graph, const std::string &value) {
  const std::vector<size_t> consumers = graph.consumersOf(value);
  return std::any_of(consumers.begin(), consumers.end(), [&](size_t k) {
    return graph.nodes[k].op_type == "BatchNormalization" && graph.nodes[k].inputs.at(0) == value;
  });
}

/// The channels of `value`, the output of `conv`'s layer: its shape's dim 1 when known (the
/// Concat of a seq layer), else W's dim 0.
int64_t outputChannels(const ir::Graph &graph, const ir::Node &conv, const std::string &value) {
  if (auto info = graph.values.find(value);
      info != graph.values.end() && info->second.shape.size() > 1)
    return info->second.shape[1];
  auto weight = graph.initializers.find(conv.inputs.at(1));
  if (weight == graph.initializers.end() || weight->second.shape.size() < 3)
    throw Error(graph.source + ": " + conv.describe() +
                ": cannot insert a BatchNormalization: W is not an initializer "
                "of rank >= 3");
  return weight->second.shape[0];
}

/// Builds the BN node reading `producer`'s output; adds its four parameter initializers to
/// `graph`.
ir::Node makeBatchNorm(ir::Graph &graph, const ir::Node &producer, int64_t channels) {
  ir::Node bn;
  bn.name =
      ir::freshName(graph, (producer.name.empty() ? producer.outputs[0] : producer.name) + "_bn");
  bn.op_type = "BatchNormalization";
  bn.inputs = {producer.outputs[0]};
  const std::pair<const char *, float> parameters[] = {
      {"scale", 1.0f}, {"B", 0.0f}, {"input_mean", 0.0f}, {"input_var", 1.0f}};
  for (const auto &[role, value] : parameters) {
    const std::string name = ir::freshName(graph, bn.name + "." + role);
    graph.initializers[name] = ir::Tensor::zeros({channels}, value);
    graph.values[name] = ir::ValueInfo{ir::DType::Float32, {channels}};
    bn.inputs.push_back(name);
  }
  bn.outputs = {ir::freshName(graph, producer.outputs[0] + "_bn")};
  bn.attributes["epsilon"] = 1e-5f;
  return bn;
}

void redirectReaders(ir::Graph &graph, const std::string &from, const std::string &to) {
  for (ir::Node &node : graph.nodes)
    if (node.outputs.at(0) != to)
      std::replace(node.inputs.begin(), node.inputs.end(), from, to);
  std::replace(graph.outputs.begin(), graph.outputs.end(), from, to);
}

} // namespace

int insertBatchNorm(ir::Graph &graph) {
  int inserted = 0;
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    if (graph.nodes[k].op_type != "Conv")
      continue;
    const std::string layer = layerOutput(graph, graph.nodes[k]);
    if (feedsBatchNorm(graph, layer))
      continue;
    const size_t at = *graph.producerOf(layer);
    const ir::Node producer = graph.nodes[at];
    ir::Node bn = makeBatchNorm(graph, producer, outputChannels(graph, graph.nodes[k], layer));
    if (auto info = graph.values.find(layer); info != graph.values.end())
      graph.values[bn.outputs[0]] = info->second;
    const std::string output = bn.outputs[0];
    graph.nodes.insert(graph.nodes.begin() + static_cast<std::ptrdiff_t>(at) + 1, std::move(bn));
    redirectReaders(graph, layer, output);
    ++inserted;
  }
  return inserted;
}

} // namespace nasc::nas
