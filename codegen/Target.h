// Target machines (host or cross) for a codegen::Target, the O3 pipeline, object files and IR text
// for generated modules.
#pragma once

#include "codegen/TargetDescription.h"

#include <memory>
#include <string>

namespace llvm {
class MemoryBuffer;
class Module;
class TargetMachine;
} // namespace llvm

namespace nasc::codegen {

/// Registers LLVM's targets, MC layers and asm printers; idempotent and thread-safe.
/// Every function below calls it, so callers need it only before using LLVM directly.
void initializeLlvm();

/// A TargetMachine for `target` (its triple, CPU and features), with PIC relocation and
/// aggressive (O3) code generation. Throws nasc::Error if LLVM cannot create one.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const Target &target);

/// Sets the module's triple and data layout from `tm` (created for `target`), tags its
/// functions with `target`'s "target-cpu", "target-features" and "prefer-vector-width" (the
/// vector unit's bits), and runs the new pass manager's O3 pipeline
/// (PassBuilder::buildPerModuleDefaultPipeline(OptimizationLevel::O3)) with loop and SLP
/// vectorization on. The optimizer's remarks and "loop not vectorized" warnings are dropped
/// (every innermost loop asks for vectorization; LLVM declining a recurrence is expected).
/// Throws nasc::Error if the module fails the IR verifier.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &tm, const Target &target);

/// Writes `module` (already optimized, triple and data layout set from `tm`) as a relocatable
/// object file (ELF on Linux) to `path`. Throws nasc::Error if the file cannot be written.
void writeObjectFile(llvm::Module &module, llvm::TargetMachine &tm, const std::string &path);

/// `module` (as for writeObjectFile) compiled to a relocatable object file in memory, named
/// after the module. `module` stays as it was.
std::unique_ptr<llvm::MemoryBuffer> compileObject(llvm::Module &module, llvm::TargetMachine &tm);

/// The module as textual LLVM IR (for `nasc inspect --stage llvm`).
std::string moduleToString(const llvm::Module &module);

/// The module's assembly for `tm` (AT&T syntax on x86-64), for inspecting vector code.
std::string moduleToAssembly(llvm::Module &module, llvm::TargetMachine &tm);

} // namespace nasc::codegen
