#include "compiler/nas/ModelCost.h"

#include "compiler/nas/ConvLayer.h"
#include "ir/ops/OpDef.h"

#include <set>

namespace nasc::nas {

ModelCost modelCost(const ir::Graph &graph) {
  ModelCost cost;
  std::set<std::string> counted;
  for (const ir::Node &node : graph.nodes) {
    const ir::OpDef *op = ir::findOp(node.op_type);
    if (!op)
      continue;
    NodeCost c{node.name, node.op_type, op->flops ? op->flops(graph, node) : 0, 0};
    for (size_t input : op->parameterInputs)
      if (input < node.inputs.size() && graph.isInitializer(node.inputs[input]) &&
          counted.insert(node.inputs[input]).second)
        c.params += graph.initializers.at(node.inputs[input]).size();
    if (c.flops == 0 && c.params == 0)
      continue;
    cost.flops += c.flops;
    cost.params += c.params;
    cost.nodes.push_back(std::move(c));
  }
  return cost;
}

std::map<std::string, int64_t> convLayerWeights(const ir::Graph &graph) {
  std::map<std::string, int64_t> weights;
  for (const ir::Node &node : graph.nodes) {
    if (node.op_type != "Conv")
      continue;
    int64_t &count = weights[layerOutput(graph, node)];
    for (size_t input : ir::findOp(node.op_type)->parameterInputs)
      if (input < node.inputs.size() && graph.isInitializer(node.inputs[input]))
        count += graph.initializers.at(node.inputs[input]).size();
  }
  return weights;
}

std::map<std::string, double>
layerWeightFractions(const std::map<std::string, int64_t> &original,
                     const std::map<std::string, int64_t> &transformed) {
  std::map<std::string, double> fractions;
  for (const auto &[layer, weights] : transformed)
    if (auto it = original.find(layer); it != original.end() && it->second > 0)
      fractions[layer] = static_cast<double>(weights) / static_cast<double>(it->second);
  return fractions;
}

} // namespace nasc::nas
