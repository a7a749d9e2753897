// Removal of inference no-ops (Identity, Dropout) by renaming the values they copy.
#pragma once

#include "ir/Graph.h"

namespace nasc::ir {

/// Removes Identity and Dropout (inference: Dropout is the identity, ONNX Dropout-13) nodes:
/// readers of the output read the input instead; when the output is a graph output, the node
/// producing the input is renamed to write the graph output directly, so graph output names
/// never change. A copy from a graph input or initializer to a graph output stays, as an
/// Identity. Throws nasc::Error naming the node if a Dropout mask output is used.
void removeNoOps(Graph &graph);

} // namespace nasc::ir
