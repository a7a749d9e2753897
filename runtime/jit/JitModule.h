// In-process JIT (ORC LLJIT) for generated modules: compile for the host CPU, look up symbols.
#pragma once

#include "codegen/TargetDescription.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
namespace orc {
class LLJIT;
} // namespace orc
} // namespace llvm

namespace nasc::runtime {

/// One JIT-compiled module. The machine code lives as long as this object.
class JitModule {
public:
  /// Compiles `module` (owned with its `context`) for `target` (its triple, CPU and features)
  /// with LLJIT and aggressive code generation. The module is expected to be optimized already
  /// (codegen::optimizeModule for the same target); its data layout is set to the JIT's if
  /// empty. Process symbols (memset, memcpy) resolve, and so does the runtime's
  /// nasc_parallel_for (runtime/jit/ParallelFor.h, an absolute symbol of the main JITDylib).
  /// Throws nasc::Error if `target`'s code cannot run on this machine (another triple, or a CPU
  /// feature this machine lacks: codegen::requireRunnableHere) or if LLVM fails.
  static std::unique_ptr<JitModule> create(std::unique_ptr<llvm::Module> module,
                                           std::unique_ptr<llvm::LLVMContext> context,
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
