// A lowered Program -> LLVM modules: kernels, embedded weights, workspace plan, C entry point.
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

/// Emits `program` into one new module per context of `contexts`, so that the modules can be
/// optimized and compiled at the same time: the first is named after the program, part P > 0
/// "<name>.partP". `asts[c]` is the isl AST of `program.calls[c].kernel` (poly::generateAst,
/// after any schedule transformations).
///
/// The modules hold:
/// - one function per distinct kernel, `void <prefix><kernel.name>(float* noalias const*,
///   int32_t threads)` (see emitKernel), and the declaration of nasc_parallel_for if a kernel
///   has a parallel loop: calls whose kernels have the same ir::kernelStructure and share one
///   AST object (asts[c].get() equal) call one function, each with its own tensors. The
///   functions go to the modules in turn, in the order of their first call; those in the first
///   module are internal, the others external and declared in the first;
/// - in the first module, each Constant buffer as an internal constant global of its float32
///   bytes, 64-byte aligned;
/// - in the first module, the exported entry point
///   `void <prefix>run(const float* const* inputs, float* const* outputs, float* workspace,
///   int32_t threads)`:
///   `inputs[i]` is buffer `program.inputs[i]`, `outputs[i]` buffer `program.outputs[i]`
///   (row-major float32 of the buffer's shape); `workspace` must hold `<prefix>workspace_bytes`
///   bytes, 64-byte aligned, and holds the Temp buffers at the offsets of planMemory(program);
///   `threads` (>= 1) is passed to every nasc_parallel_for call (1: nothing is spawned);
/// - in the first module, the exported constant `const int64_t <prefix>workspace_bytes`;
/// - with `profile`, a call `kProfileSymbol(c)` after kernel call c returns, for the runtime to
///   time each kernel (the JIT defines the symbol; shared libraries are built without it).
/// Kernels run in call order; `run` is reentrant for distinct workspaces and outputs.
///
/// Throws nasc::Error if `contexts` is empty, asts.size() differs from the number of calls, a
/// call binds a wrong number of buffers, a buffer index is out of range, a call binds one buffer
/// to two kernel tensors, a bound buffer's element count differs from the kernel tensor's, a
/// Constant buffer's data does not match its shape, or a kernel's AST cannot be emitted.
std::vector<std::unique_ptr<llvm::Module>>
emitProgram(const std::vector<llvm::LLVMContext *> &contexts, const ir::Program &program,
            const std::vector<isl::ast_node> &asts, const std::string &symbolPrefix,
            bool profile = false);

/// `void nasc_profile_kernel_end(int32_t call)`: called after each kernel of a profiled program.
inline constexpr const char *kProfileSymbol = "nasc_profile_kernel_end";

} // namespace nasc::codegen
