// Lowering of an inference-ready Graph to a Program of loop-nest Kernels (ir/Kernel.h).
#pragma once

#include "ir/Graph.h"
#include "ir/Program.h"

namespace nasc::ir {

/// Lowers `graph` to a Program. The graph must be inference-ready: every value's shape known in
/// Graph::values, weights in Graph::initializers, BatchNormalization folded where legal,
/// Identity/Dropout removed and Constant nodes folded (ir/passes).
///
/// Buffers: graph inputs become BufferKind::Input, graph outputs Output, initializers read by a
/// kernel Constant (with their data), all other values Temp; lowering adds Constant buffers of
/// its own (BatchNormalization scale/shift, AveragePool reciprocal counts). Program::inputs and
/// Program::outputs follow the graph's order. Kernel calls are in execution order, each naming
/// the graph nodes it implements in KernelCall::nodes; a Conv followed by a residual Add and/or a
/// Relu, whose intermediate values have a single consumer and are not graph outputs, becomes one
/// kernel. A graph output that is directly a graph input or an initializer gets a copy kernel.
///
/// Supported ops (ONNX semantics, opsets 11-17): Conv, MaxPool, AveragePool (any number of
/// spatial axes: 1-d, 2-d, 3-d, ...), GlobalAveragePool, GlobalMaxPool, BatchNormalization, Relu,
/// Clip, Add, Sub, Mul, Div (numpy broadcasting), Gemm, MatMul (2-d), Concat, Flatten, Reshape,
/// Squeeze, Unsqueeze, Identity, Slice (constant starts / ends / axes / steps, non-empty output)
/// and Resize (mode 'nearest', where the source index along every axis is floor((a·o + b) / d) for
/// integers a, b, d and stays inside the input without clamping, e.g. an integer upsampling with
/// asymmetric + floor or half_pixel + round_prefer_floor). `graph` has passed ir::checkSupported
/// (ir::prepareForInference), which rejects the attribute values and outputs nasc does not
/// support; the lowerings do not check them again. Throws nasc::Error naming the graph source,
/// node and attribute for an unsupported op or shape.
Program lowerGraph(const Graph &graph);

} // namespace nasc::ir
