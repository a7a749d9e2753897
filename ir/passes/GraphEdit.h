// Small graph-rewriting helpers shared by the graph passes.
#pragma once

#include "ir/Graph.h"

#include <string>

namespace nasc::ir {

/// Replaces every node input named `from` by `to` (graph outputs are left unchanged).
void replaceUses(Graph &graph, const std::string &from, const std::string &to);

/// True if `value` is read by a node or is a graph output.
bool isUsed(const Graph &graph, const std::string &value);

/// True if `value` is a graph output.
bool isGraphOutput(const Graph &graph, const std::string &value);

/// `base`, or `base` with the first suffix "_1", "_2", ... that makes it unused as a value,
/// initializer, node name or node output.
std::string freshName(const Graph &graph, const std::string &base);

/// Drops initializers (and their value entries) that no node reads and no graph output names.
void removeUnusedInitializers(Graph &graph);

} // namespace nasc::ir
