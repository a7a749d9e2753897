// The C ABI of a compiled model library: the C source wrapping the generated code and the
// header that applications include.
#pragma once

#include "ir/Program.h"

#include <string>

namespace nasc::compiler {

/// C source (C11) of the ABI functions nasc_model_create/destroy/num_inputs/num_outputs/
/// input_shape/output_shape/input_name/output_name/run/last_error/set_num_threads for
/// `program`. It calls the generated `<prefix>run(inputs, outputs, workspace)` and reads
/// `<prefix>workspace_bytes` (both emitted by codegen::emitProgram with the same prefix).
std::string libraryAbiSource(const ir::Program &program, const std::string &prefix);

/// The header declaring the ABI, with each input/output name and NCHW shape as comments.
std::string libraryAbiHeader(const ir::Program &program);

} // namespace nasc::compiler
