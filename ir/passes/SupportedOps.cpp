// checkSupported: every node against its op's registry entry (ir/ops).
#include "ir/passes/SupportedOps.h"

#include "ir/Error.h"
#include "ir/ops/OpDef.h"

namespace nasc::ir {

namespace {

[[noreturn]] void reject(const Graph &graph, const Node &node, const std::string &message) {
  throw Error(graph.source + ": " + node.describe() + ": " + message);
}

void checkAttributeNames(const Graph &graph, const Node &node, const OpDef &op) {
  for (const auto &[attr, value] : node.attributes)
    if (!op.attributes.count(attr))
      reject(graph, node, "attribute '" + attr + "' is not supported");
}

/// The inputs whose type is known already (initializers, graph inputs) against floatInputs.
void checkInputTypes(const Graph &graph, const Node &node, const OpDef &op) {
  for (size_t k = 0; k < node.inputs.size() && k < op.floatInputs; ++k) {
    std::optional<ValueInfo> type = knownType(graph, node.inputs[k]);
    if (type && type->dtype != DType::Float32)
      reject(graph, node, "input '" + node.inputs[k] + "': only float32 is supported");
  }
}

void checkOutputs(const Graph &graph, const Node &node, const OpDef &op) {
  for (size_t k = op.maxOutputs; k < node.outputs.size(); ++k)
    if (!node.outputs[k].empty())
      reject(graph, node,
             "output " + std::to_string(k) + " ('" + node.outputs[k] + "') is not supported" +
                 (op.extraOutputs.empty() ? "" : " (" + op.extraOutputs + ")"));
}

/// op.check, its error given the graph's file in front.
void checkValues(const Graph &graph, const Node &node, const OpDef &op) {
  if (!op.check)
    return;
  try {
    op.check(graph, node);
  } catch (const Error &e) {
    const std::string message = e.what();
    throw message.starts_with(graph.source + ": ") ? e : Error(graph.source + ": " + message);
  }
}

} // namespace

void checkSupported(const Graph &graph) {
  for (const Node &node : graph.nodes) {
    const OpDef *op = findOp(node.op_type);
    if (!op)
      reject(graph, node, "op '" + node.op_type + "' is not supported");
    checkAttributeNames(graph, node, *op);
    checkValues(graph, node, *op);
    checkInputTypes(graph, node, *op);
    checkOutputs(graph, node, *op);
  }
}

} // namespace nasc::ir
