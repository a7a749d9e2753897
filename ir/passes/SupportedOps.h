// The ops and attribute values nasc compiles; everything else is rejected up front.
#pragma once

#include "ir/Graph.h"

namespace nasc::ir {

/// Checks every node against the ops nasc supports (Conv, BatchNormalization, Relu, MaxPool,
/// AveragePool, GlobalAveragePool, Add, Flatten, Gemm, Concat, Identity, Dropout, Constant,
/// Reshape, Slice, Resize) and their attributes: unknown attributes, Resize modes other than
/// 'nearest' (or unknown coordinate_transformation_mode / nearest_mode values), non-float32 inputs
/// of compute ops, MaxPool storage_order=1 or an Indices output, BatchNormalization training_mode=1
/// or training outputs, Gemm inputs that are known not to be 2-D, Dropout's training_mode input,
/// unknown auto_pad values. Throws nasc::Error naming the file, node, op and attribute.
void checkSupported(const Graph &graph);

} // namespace nasc::ir
