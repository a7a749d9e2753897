// Export of a Graph as an ONNX protobuf model (the output of `nasc mutate`).
#pragma once

#include "ir/Graph.h"

#include <map>
#include <string>

namespace nasc::ir {

/// Writes `graph` to `path` as an ONNX model: IR version 8, default-domain opset 13 (the semantics
/// nasc gives every op, docs/model-spec.md), producer "nasc". Nodes keep their names, op types,
/// inputs, outputs and attributes; initializers are written with raw_data (float32 or int64, little
/// endian); graph inputs and outputs carry their dtype and static shape from `graph.values`.
/// `metadata` becomes the model's metadata_props (e.g. the transformations applied). Throws
/// nasc::Error naming `path` when a graph input or output has no recorded shape or the file cannot
/// be written.
void exportOnnx(const Graph &graph, const std::string &path,
                const std::map<std::string, std::string> &metadata = {});

} // namespace nasc::ir
