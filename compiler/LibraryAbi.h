// The C ABI of a compiled model library: the C source wrapping the generated code and the
// header that applications include.
#pragma once

#include "codegen/TargetDescription.h"
#include "ir/Program.h"

#include <string>

namespace nasc::compiler {

/// C source (C11) of the ABI functions nasc_model_create/destroy/num_inputs/num_outputs/
/// input_shape/output_shape/input_name/output_name/run/last_error/set_num_threads/target for
/// `program`, compiled for `target`: nasc_model_create first checks that the CPU has the
/// features codegen::runtimeCheckedFeatures(target) lists and otherwise returns NULL, with
/// nasc_model_last_error(NULL) naming the missing ones (never SIGILL in generated code). It calls
/// the generated `<prefix>run(inputs, outputs, workspace, threads)` with the instance's thread
/// count (`defaultThreads` after nasc_model_create, then as set by nasc_model_set_num_threads) and
/// reads `<prefix>workspace_bytes` (both emitted by codegen::emitProgram with the same prefix). It
/// also defines the runtime entry nasc_parallel_for (codegen/ParallelCall.h) with OpenMP (compile
/// it with -fopenmp): a static schedule of min(threads, ub - lb) equal ranges; threads == 1 calls
/// the body directly. Throws nasc::Error if an input or output has more than 8 dimensions.
std::string libraryAbiSource(const ir::Program &program, const std::string &prefix,
                             const codegen::Target &target, int defaultThreads = 1);

/// The header declaring the ABI, with each input/output name and NCHW shape and the target
/// (codegen::describeTarget) as comments.
std::string libraryAbiHeader(const ir::Program &program, const codegen::Target &target);

} // namespace nasc::compiler
