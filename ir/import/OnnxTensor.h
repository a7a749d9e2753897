// Conversion of an ONNX TensorProto to an ir::Tensor (needs the ONNX protobuf headers).
#pragma once

#include "ir/Tensor.h"

#include <string>

namespace onnx {
class TensorProto;
}

namespace nasc::ir {

/// The ir::Tensor of an ONNX TensorProto: FLOAT becomes Float32, INT64 and INT32 become Int64,
/// read from `raw_data` (little-endian, ONNX IR spec) or the typed fields (`float_data`,
/// `int64_data`, `int32_data`). `context` names where the tensor comes from in error messages.
/// Throws nasc::Error naming `context` and the tensor for other data types, external data, or a
/// data size that does not match the dims.
Tensor tensorFromProto(const onnx::TensorProto &proto, const std::string &context = "tensor");

} // namespace nasc::ir
