// Loading a model file (.onnx or .json) into a graph, with or without the inference passes.
#pragma once

#include "ir/Graph.h"

#include <map>
#include <string>

namespace nasc::ir {

/// Imports `path` by its extension (.onnx: importOnnx, .json: importJson) without running any
/// pass, e.g. for training-mode use. `shapeOverrides` replaces the shapes of the named graph
/// inputs (e.g. another batch size, or a symbolic ONNX dim). Throws nasc::Error for another
/// extension, an override naming no graph input, or any import error.
Graph loadModelRaw(const std::string &path,
                   const std::map<std::string, Shape> &shapeOverrides = {});

/// loadModelRaw followed by prepareForInference (ir/passes/Passes.h): the returned graph has
/// static shapes everywhere, BN folded where possible, and only supported ops.
Graph loadModel(const std::string &path, const std::map<std::string, Shape> &shapeOverrides = {});

} // namespace nasc::ir
