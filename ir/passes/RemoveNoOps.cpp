#include "ir/passes/RemoveNoOps.h"

#include "ir/Error.h"
#include "ir/ops/OpDef.h"
#include "ir/passes/GraphEdit.h"

#include <algorithm>

namespace nasc::ir {

namespace {

void checkMaskUnused(const Graph &graph, const Node &node) {
  if (node.outputs.size() > 1 && !node.outputs[1].empty() && isUsed(graph, node.outputs[1]))
    throw Error(graph.source + ": " + node.describe() + ": output 'mask' ('" + node.outputs[1] +
                "') is used; only inference Dropout is supported");
}

/// Makes the producer of `from` write `to` instead; false if `from` has no producing node or
/// must keep its name (a graph output itself).
bool renameProducedValue(Graph &graph, const std::string &from, const std::string &to) {
  std::optional<size_t> producer = graph.producerOf(from);
  if (!producer || isGraphOutput(graph, from))
    return false;
  std::replace(graph.nodes[*producer].outputs.begin(), graph.nodes[*producer].outputs.end(), from,
               to);
  replaceUses(graph, from, to);
  if (auto it = graph.values.find(from); it != graph.values.end()) {
    graph.values[to] = it->second;
    graph.values.erase(from);
  }
  return true;
}

/// Removes node `index` if possible; returns whether it was removed.
bool removeNoOp(Graph &graph, size_t index) {
  Node &node = graph.nodes[index];
  checkMaskUnused(graph, node);
  const std::string in = node.inputs.at(0);
  const std::string out = node.outputs.at(0);
  if (!isGraphOutput(graph, out)) {
    replaceUses(graph, out, in);
    graph.values.erase(out);
  } else if (!renameProducedValue(graph, in, out)) {
    node.op_type = "Identity";
    node.attributes.clear();
    node.inputs.resize(1);
    node.outputs.resize(1);
    return false;
  }
  graph.nodes.erase(graph.nodes.begin() + static_cast<std::ptrdiff_t>(index));
  return true;
}

} // namespace

void removeNoOps(Graph &graph) {
  for (size_t k = 0; k < graph.nodes.size();) {
    if (opHas(graph.nodes[k].op_type, &OpDef::noOp) && removeNoOp(graph, k))
      continue;
    ++k;
  }
}

} // namespace nasc::ir
