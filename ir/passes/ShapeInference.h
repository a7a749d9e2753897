// Shape inference: gives every value of a graph its dtype and static shape.
#pragma once

#include "ir/Graph.h"

namespace nasc::ir {

/// Infers dtype and shape of every node output, in node order, from the graph inputs and
/// initializers (ONNX operator spec shape rules), for Conv, BatchNormalization, Relu, MaxPool,
/// AveragePool, GlobalAveragePool, Add (numpy broadcasting), Flatten, Gemm, Concat, Identity,
/// Dropout, Constant and Reshape (shape input must be an initializer). Window ops follow
/// WindowGeometry.h. A shape already recorded for an output (an ONNX value_info or graph output)
/// must equal the inferred one. Throws nasc::Error naming the file and node on an unknown op,
/// an input without shape, or inconsistent shapes.
void inferShapes(Graph &graph);

/// numpy (multidirectional) broadcast of two shapes, ONNX "Broadcasting in ONNX"; throws
/// nasc::Error with `context` when the shapes are not broadcastable.
Shape broadcastShapes(const Shape &a, const Shape &b, const std::string &context);

} // namespace nasc::ir
