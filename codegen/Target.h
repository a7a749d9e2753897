// Target machines (host or cross), the O3 pipeline, object files and IR text for generated modules.
#pragma once

#include <memory>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace nasc::codegen {

/// Registers LLVM's targets, MC layers and asm printers; idempotent and thread-safe.
/// Every function below calls it, so callers need it only before using LLVM directly.
void initializeLlvm();

/// A TargetMachine for `triple`, with PIC relocation and aggressive (O3) code generation.
/// - "native": the host triple, CPU (llvm::sys::getHostCPUName, e.g. "znver4") and its
///   detected features (AVX2 / AVX-512 chosen at run time).
/// - any other triple (e.g. "aarch64-linux-gnu"): a cross target with the "generic" CPU and
///   the target's baseline features (NEON on AArch64).
/// Throws nasc::Error if LLVM has no target for the triple.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const std::string &triple = "native");

/// The float vector unit of a target: the lanes of its widest float vector and its count of
/// vector registers. AVX-512 (avx512f): 16 and 32; AVX or AVX2: 8 and 16; AArch64 (NEON): 4
/// and 32; other targets (SSE): 4 and 16.
struct VectorUnit {
  int lanes = 4;
  int registers = 16;
};

/// The VectorUnit of `triple` ("native": the host's detected features, as createTargetMachine).
VectorUnit vectorUnit(const std::string &triple = "native");

/// Sets the module's triple and data layout from `tm`, tags its functions with the machine's
/// "target-cpu"/"target-features", and runs the new pass manager's O3 pipeline
/// (PassBuilder::buildPerModuleDefaultPipeline(OptimizationLevel::O3)) with loop and SLP
/// vectorization on. The optimizer's remarks and "loop not vectorized" warnings are dropped
/// (every innermost loop asks for vectorization; LLVM declining a recurrence is expected).
/// Throws nasc::Error if the module fails the IR verifier.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &tm);

/// Writes `module` (already optimized, triple and data layout set from `tm`) as a relocatable
/// object file (ELF on Linux) to `path`. Throws nasc::Error if the file cannot be written.
void writeObjectFile(llvm::Module &module, llvm::TargetMachine &tm, const std::string &path);

/// The module as textual LLVM IR (for `nasc inspect --stage llvm`).
std::string moduleToString(const llvm::Module &module);

/// The module's assembly for `tm` (AT&T syntax on x86-64), for inspecting vector code.
std::string moduleToAssembly(llvm::Module &module, llvm::TargetMachine &tm);

} // namespace nasc::codegen
