#include "compiler/nas/ModelCost.h"

#include <set>

namespace nasc::nas {

namespace {

double convFlops(const ir::Graph &graph, const ir::Node &node) {
  const ir::Shape &y = graph.shapeOf(node.outputs.at(0));
  const ir::Shape &w = graph.shapeOf(node.inputs.at(1));
  return 2.0 * static_cast<double>(ir::numElements(y)) * static_cast<double>(w[1]) *
         static_cast<double>(ir::numElements(w) / (w[0] * w[1]));
}

double gemmFlops(const ir::Graph &graph, const ir::Node &node) {
  const ir::Shape &a = graph.shapeOf(node.inputs.at(0));
  const ir::Shape &y = graph.shapeOf(node.outputs.at(0));
  const int64_t inner = node.getInt("transA", 0) ? a.at(0) : a.at(1);
  return 2.0 * static_cast<double>(ir::numElements(y)) * static_cast<double>(inner);
}

/// Conv (W, B), Gemm (B, C) and BatchNormalization (scale, B) hold their trainable parameters in
/// inputs 1 and 2.
bool hasParameters(const ir::Node &node) {
  return node.op_type == "Conv" || node.op_type == "Gemm" || node.op_type == "BatchNormalization";
}

} // namespace

ModelCost modelCost(const ir::Graph &graph) {
  ModelCost cost;
  std::set<std::string> counted;
  for (const ir::Node &node : graph.nodes) {
    NodeCost c{node.name, node.op_type, 0, 0};
    if (node.op_type == "Conv")
      c.flops = convFlops(graph, node);
    else if (node.op_type == "Gemm")
      c.flops = gemmFlops(graph, node);
    for (size_t input = 1; hasParameters(node) && input < 3 && input < node.inputs.size(); ++input)
      if (graph.isInitializer(node.inputs[input]) && counted.insert(node.inputs[input]).second)
        c.params += graph.initializers.at(node.inputs[input]).size();
    if (c.flops == 0 && c.params == 0)
      continue;
    cost.flops += c.flops;
    cost.params += c.params;
    cost.nodes.push_back(std::move(c));
  }
  return cost;
}

} // namespace nasc::nas
