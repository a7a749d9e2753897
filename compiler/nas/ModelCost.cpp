#include "compiler/nas/ModelCost.h"

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

} // namespace nasc::nas
