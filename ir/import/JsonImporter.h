// Import of the project's ONNX-like JSON model spec (docs/model-spec.md) into the graph IR.
#pragma once

#include "ir/Graph.h"

#include <string>

namespace nasc::ir {

/// Reads a JSON model spec (docs/model-spec.md) into a Graph, without running any pass.
/// Weights are inline ("data"), read from a little-endian float32 side file ("file", "offset",
/// relative to the JSON file) or generated ("init": "he_normal" with "seed", "zeros", "ones";
/// see WeightInit.h). Every malformed or unknown field throws nasc::Error naming the file, the
/// node / initializer / input and the field.
Graph importJson(const std::string &path);

} // namespace nasc::ir
