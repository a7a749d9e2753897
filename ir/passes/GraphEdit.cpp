#include "ir/passes/GraphEdit.h"

#include <algorithm>

namespace nasc::ir {

void replaceUses(Graph &graph, const std::string &from, const std::string &to) {
  for (Node &node : graph.nodes)
    std::replace(node.inputs.begin(), node.inputs.end(), from, to);
}

bool isGraphOutput(const Graph &graph, const std::string &value) {
  return std::find(graph.outputs.begin(), graph.outputs.end(), value) != graph.outputs.end();
}

bool isUsed(const Graph &graph, const std::string &value) {
  return isGraphOutput(graph, value) || !graph.consumersOf(value).empty();
}

std::string freshName(const Graph &graph, const std::string &base) {
  auto used = [&](const std::string &name) {
    return graph.values.count(name) || graph.initializers.count(name) ||
           std::any_of(graph.nodes.begin(), graph.nodes.end(), [&](const Node &node) {
             return node.name == name ||
                    std::find(node.outputs.begin(), node.outputs.end(), name) != node.outputs.end();
           });
  };
  std::string name = base;
  for (int k = 1; used(name); ++k)
    name = base + "_" + std::to_string(k);
  return name;
}

void removeUnusedInitializers(Graph &graph) {
  for (auto it = graph.initializers.begin(); it != graph.initializers.end();) {
    if (isUsed(graph, it->first)) {
      ++it;
      continue;
    }
    graph.values.erase(it->first);
    it = graph.initializers.erase(it);
  }
}

} // namespace nasc::ir
