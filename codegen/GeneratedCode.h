// The whole backend for one Program behind an LLVM-free interface: emit, optimize, then
// inspect, write an object file, or hand the module to the JIT.
#pragma once

#include "codegen/TargetDescription.h"
#include "ir/PassTimes.h"
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

/// An optimized LLVM module for `program` (see emitProgram for its symbols) with its context
/// and target machine.
class GeneratedCode {
public:
  /// Emits `program` with `asts` (one per call) for `target`, with the per-kernel profiling
  /// hook if `profile` (see emitProgram), and runs the O3 pipeline.
  /// Throws nasc::Error as emitProgram / createTargetMachine do.
  GeneratedCode(const ir::Program &program, const std::vector<isl::ast_node> &asts,
                const std::string &symbolPrefix, const Target &target, bool profile = false);
  ~GeneratedCode();
  GeneratedCode(GeneratedCode &&) noexcept;

  /// The target the code was generated for.
  const Target &target() const;
  /// Wall-clock time of its phases so far: LLVM IR emission, LLVM O3, object file.
  const ir::PassTimes &times() const;
  /// Optimized LLVM IR text.
  std::string llvmIr() const;
  /// Assembly for the target.
  std::string assembly();
  /// Writes a relocatable object file (PIC).
  void writeObject(const std::string &path);
  /// Moves the module and its context out (for the JIT); the object is empty afterwards.
  std::unique_ptr<llvm::Module> takeModule();
  std::unique_ptr<llvm::LLVMContext> takeContext();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace nasc::codegen
