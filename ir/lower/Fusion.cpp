#include "ir/lower/Fusion.h"

#include <algorithm>

namespace nasc::ir::lower {

namespace {

/// The single consumer of `value` if it has exactly one, the value is not a graph output and
/// the consumer has op type `opType`.
std::optional<size_t> soleConsumer(const Graph &graph, const std::string &value,
                                   const std::string &opType) {
  if (std::find(graph.outputs.begin(), graph.outputs.end(), value) != graph.outputs.end())
    return std::nullopt;
  std::vector<size_t> consumers = graph.consumersOf(value);
  if (consumers.size() != 1 || graph.nodes[consumers[0]].op_type != opType)
    return std::nullopt;
  return consumers[0];
}

/// The operand of the binary node `add` other than `value`, if it has the shape of `value`.
std::optional<std::string> residualOperand(const Graph &graph, const Node &add,
                                           const std::string &value) {
  if (add.inputs.size() != 2 || add.inputs[0] == add.inputs[1])
    return std::nullopt;
  const std::string &other = add.inputs[0] == value ? add.inputs[1] : add.inputs[0];
  auto it = graph.values.find(other);
  Shape shape = graph.isInitializer(other) ? graph.initializers.at(other).shape
                : it != graph.values.end() ? it->second.shape
                                           : Shape{};
  if (shape != graph.shapeOf(value))
    return std::nullopt;
  return other;
}

ConvFusion planOne(const Graph &graph, size_t conv, const std::vector<size_t> &claimed) {
  ConvFusion f;
  f.conv = conv;
  std::string value = graph.nodes[conv].outputs.at(0);
  auto add = soleConsumer(graph, value, "Add");
  if (add && std::find(claimed.begin(), claimed.end(), *add) == claimed.end()) {
    if (auto residual = residualOperand(graph, graph.nodes[*add], value)) {
      f.add = add;
      f.residual = *residual;
      value = graph.nodes[*add].outputs.at(0);
    }
  }
  f.relu = soleConsumer(graph, value, "Relu");
  return f;
}

} // namespace

std::vector<ConvFusion> planConvFusion(const Graph &graph) {
  std::vector<ConvFusion> plan;
  std::vector<size_t> claimedAdds;
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    if (graph.nodes[k].op_type != "Conv")
      continue;
    plan.push_back(planOne(graph, k, claimedAdds));
    if (plan.back().add)
      claimedAdds.push_back(*plan.back().add);
  }
  return plan;
}

} // namespace nasc::ir::lower
