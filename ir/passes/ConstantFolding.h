// Constant folding: Constant nodes and cheap shape-like ops on initializers become initializers.
#pragma once

#include "ir/Graph.h"

namespace nasc::ir {

/// Turns Constant nodes into initializers (also those writing a graph output, which then is an
/// initializer), then folds Identity, Reshape, Flatten, Concat and Add nodes all of whose inputs
/// are initializers (float32 or int64, numpy broadcasting for Add; ONNX operator spec); those
/// writing a graph output are kept. Initializers left unused are dropped. Throws nasc::Error naming
/// the node for malformed constants.
void foldConstants(Graph &graph);

/// The value of a Constant node: its TENSOR `value`, or `value_float` / `value_int` (scalars),
/// `value_floats` / `value_ints` (1-D). Throws nasc::Error naming the node otherwise.
Tensor constantNodeValue(const Node &node);

} // namespace nasc::ir
