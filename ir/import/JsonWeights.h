// Private helpers of the JSON importer: initializers (inline, side file, seeded) and tensors.
#pragma once

#include "ir/Tensor.h"

#include <nlohmann/json.hpp>

#include <string>

namespace nasc::ir::json_weights {

/// The tensor of one "initializers" entry (docs/model-spec.md): "data", "file" + "offset" or
/// "init" + "seed". `specPath` is the JSON file (side files are relative to its directory);
/// `where` prefixes errors, e.g. "model.json: initializer 'conv1.weight'".
Tensor initializerTensor(const nlohmann::json &entry, const std::string &specPath,
                         const std::string &where);

/// An inline tensor {"shape": [...], "data": [...], "dtype": "float32" | "int64"} (a TENSOR
/// attribute, e.g. Constant's "value").
Tensor inlineTensor(const nlohmann::json &entry, const std::string &where);

} // namespace nasc::ir::json_weights
