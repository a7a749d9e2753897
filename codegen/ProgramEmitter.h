// A lowered Program -> one LLVM module: kernels, embedded weights, workspace plan, C entry point.
#pragma once

#include "ir/Program.h"

#include <isl/cpp.h>

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace nasc::codegen {

/// Emits `program` into a new module named after it. `asts[c]` is the isl AST of
/// `program.calls[c].kernel` (poly::generateAst, after any schedule transformations).
///
/// The module holds:
/// - one internal function per call, `void <prefix><kernel.name>(float* noalias const*)`
///   (see emitKernel);
/// - each Constant buffer as an internal constant global float array, 64-byte aligned;
/// - the exported entry point
///   `void <prefix>run(const float* const* inputs, float* const* outputs, float* workspace)`:
///   `inputs[i]` is buffer `program.inputs[i]`, `outputs[i]` buffer `program.outputs[i]`
///   (row-major float32 of the buffer's shape); `workspace` must hold `<prefix>workspace_bytes`
///   bytes, 64-byte aligned, and holds the Temp buffers at the offsets of planMemory(program);
/// - the exported constant `const int64_t <prefix>workspace_bytes`.
/// Kernels run in call order; `run` is reentrant for distinct workspaces and outputs.
///
/// Throws nasc::Error if asts.size() differs from the number of calls, a call binds a wrong
/// number of buffers, a buffer index is out of range, a call binds one buffer to two kernel
/// tensors, a bound buffer's element count differs from the kernel tensor's, a Constant
/// buffer's data does not match its shape, or a kernel's AST cannot be emitted.
std::unique_ptr<llvm::Module> emitProgram(llvm::LLVMContext &context, const ir::Program &program,
                                          const std::vector<isl::ast_node> &asts,
                                          const std::string &symbolPrefix);

} // namespace nasc::codegen
