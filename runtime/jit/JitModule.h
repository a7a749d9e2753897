// In-process JIT (ORC LLJIT) for generated code: link its object files, look up symbols.
#pragma once

#include "codegen/TargetDescription.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
namespace orc {
class LLJIT;
} // namespace orc
} // namespace llvm

namespace nasc::runtime {

/// JIT-linked generated code. The machine code lives as long as this object.
class JitModule {
public:
  /// Links relocatable object files compiled for `target` (its triple, CPU and features;
  /// codegen::GeneratedCode::takeObjects) in LLJIT. Process symbols (memset, memcpy) resolve,
  /// and so does the runtime's nasc_parallel_for (runtime/jit/ParallelFor.h, an absolute symbol
  /// of the main JITDylib); so do the objects' symbols between them.
  /// Throws nasc::Error if `target`'s code cannot run on this machine (another triple, or a CPU
  /// feature this machine lacks: codegen::requireRunnableHere) or if LLVM fails.
  static std::unique_ptr<JitModule> create(std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects,
                                           const codegen::Target &target);
  ~JitModule();
  JitModule(const JitModule &) = delete;
  JitModule &operator=(const JitModule &) = delete;

  /// Address of the defined symbol `symbol` (function or global), compiling on first use.
  /// Throws nasc::Error if the module does not define it.
  void *lookup(const std::string &symbol);

private:
  explicit JitModule(std::unique_ptr<llvm::orc::LLJIT> jit);
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

} // namespace nasc::runtime
