// Import of ONNX protobuf models (opset 11-17) and ONNX test-data tensors into the graph IR.
#pragma once

#include "ir/Graph.h"

#include <map>
#include <string>

namespace nasc::ir {

/// Reads an ONNX model file (opsets 1-17 are read; legacy attributes whose meaning differs are
/// rejected later by checkSupported) into a Graph, without running any pass. Initializers (float32
/// and int64, raw_data or typed fields) become Graph::initializers; value shapes come from the
/// graph inputs, outputs and value_info. A symbolic dimension (dim_param) on a graph input is an
/// error naming the input unless `shapeOverrides` gives that input's shape; with overrides, the
/// shapes the file declares for outputs and value_info are dropped (inferShapes recomputes them).
/// Attributes of kind INT, FLOAT, STRING, INTS, FLOATS and TENSOR are kept; any other kind,
/// external data, or an unreadable file throws nasc::Error naming the file, node and attribute.
Graph importOnnx(const std::string &path, const std::map<std::string, Shape> &shapeOverrides = {});

/// Reads a file holding one serialized onnx::TensorProto (the `input_0.pb` / `output_0.pb` files
/// of ONNX's test data). Float32 and int64 (int32 is widened) only; throws nasc::Error naming the
/// file otherwise.
Tensor readTensorProto(const std::string &path);

} // namespace nasc::ir
