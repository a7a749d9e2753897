// The whole backend for one Program behind an LLVM-free interface: emit, optimize, then
// inspect, write object files, or hand the objects to the JIT.
#pragma once

#include "codegen/TargetDescription.h"
#include "ir/PassTimes.h"
#include "ir/Program.h"

#include <isl/cpp.h>

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace nasc::codegen {

/// The most LLVM modules a program's code is split into (emitProgram): the parts are
/// optimized and compiled at the same time. A fixed number, so that the code does not depend
/// on the thread count.
inline constexpr size_t kCodegenParts = 8;

/// Optimized LLVM modules for `program` (see emitProgram for their symbols): min(kCodegenParts,
/// number of calls) parts, each with its own context and target machine.
class GeneratedCode {
public:
  /// Emits `program` with `asts` (one per call) for `target`, with the per-kernel profiling
  /// hook if `profile` (see emitProgram), and runs the O3 pipeline on the parts, up to
  /// ir::resolveThreads(jobs) at a time. Throws nasc::Error as emitProgram /
  /// createTargetMachine do.
  GeneratedCode(const ir::Program &program, const std::vector<isl::ast_node> &asts,
                const std::string &symbolPrefix, const Target &target, bool profile = false,
                int jobs = 0);
  ~GeneratedCode();
  GeneratedCode(GeneratedCode &&) noexcept;

  /// The target the code was generated for.
  const Target &target() const;
  /// Wall-clock time of its phases so far: LLVM IR emission, LLVM O3, object file.
  const ir::PassTimes &times() const;
  /// Optimized LLVM IR text of every part, in order.
  std::string llvmIr() const;
  /// Assembly for the target of every part, in order.
  std::string assembly();
  /// Writes each part as a relocatable object file (PIC) to `<stem><P>.o`, up to `jobs` parts
  /// at a time (phase "object file"); returns the paths. Throws nasc::Error if a file cannot
  /// be written.
  std::vector<std::string> writeObjects(const std::string &stem);
  /// The parts compiled to relocatable object files in memory, as writeObjects, for the JIT;
  /// the parts are gone afterwards.
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> takeObjects();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace nasc::codegen
