// The Eigen reference executor: runs a Graph node by node, the independent check of compiled code.
#pragma once

#include "ir/Graph.h"

#include <map>
#include <string>

namespace nasc::runtime {

/// Runs `graph` forward on `inputs` (one tensor per name in graph.inputs; float32 NCHW
/// activations, int64 only for shape-like inputs such as Reshape's shape) and
/// returns the graph outputs by name, or, with `keepIntermediates`, every value computed
/// (graph inputs and all node outputs, not the initializers).
/// Nodes run in the order of graph.nodes (topological) with ONNX semantics (opset 11-17) for
/// Conv, BatchNormalization (inference), Relu, MaxPool, AveragePool, GlobalAveragePool, Add,
/// Flatten, Gemm, Concat, Reshape, Identity, Dropout (inference), Constant, Slice and Resize
/// (nearest). Output shapes are
/// computed from the input tensors, so graph.values is only used to check the inputs.
/// Throws nasc::Error naming the graph source and:
///  - the input, when an input is missing or its dtype / shape differs from graph.values;
///  - the node and op, for an unsupported op, attribute value or input shape.
std::map<std::string, ir::Tensor> runReference(const ir::Graph &graph,
                                               const std::map<std::string, ir::Tensor> &inputs,
                                               bool keepIntermediates = false);

} // namespace nasc::runtime
