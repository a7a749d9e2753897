#include "runtime/jit/JitModule.h"

#include "codegen/ParallelCall.h"
#include "codegen/ProgramEmitter.h"
#include "codegen/Target.h"
#include "ir/Error.h"
#include "runtime/jit/KernelProfile.h"
#include "runtime/jit/ParallelFor.h"

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>

namespace nasc::runtime {

namespace {

template <typename T> T unwrap(llvm::Expected<T> value, const std::string &what) {
  if (!value)
    throw Error("jit: " + what + ": " + llvm::toString(value.takeError()));
  return std::move(*value);
}

void check(llvm::Error error, const std::string &what) {
  if (error)
    throw Error("jit: " + what + ": " + llvm::toString(std::move(error)));
}

/// Defines the runtime entries that generated code calls (nasc_parallel_for, and
/// nasc_profile_kernel_end in profiled programs) in the JIT's main library as absolute symbols.
void defineRuntimeSymbols(llvm::orc::LLJIT &jit) {
  llvm::orc::SymbolMap symbols;
  symbols[jit.mangleAndIntern(codegen::kParallelForSymbol)] = {
      llvm::orc::ExecutorAddr::fromPtr(&nasc_parallel_for),
      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  symbols[jit.mangleAndIntern(codegen::kProfileSymbol)] = {
      llvm::orc::ExecutorAddr::fromPtr(&nasc_profile_kernel_end),
      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  check(jit.getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols))),
        "defining the runtime symbols");
}

} // namespace

JitModule::JitModule(std::unique_ptr<llvm::orc::LLJIT> jit) : jit_(std::move(jit)) {}

JitModule::~JitModule() = default;

std::unique_ptr<JitModule>
JitModule::create(std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects,
                  const codegen::Target &target) {
  codegen::initializeLlvm();
  codegen::requireRunnableHere(target);
  llvm::orc::JITTargetMachineBuilder machine{llvm::Triple(target.triple)};
  machine.setCPU(target.cpu);
  machine.setFeatures(target.llvmFeatures);
  machine.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto jit =
      unwrap(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(machine)).create(),
             "creating LLJIT");
  defineRuntimeSymbols(*jit);
  for (std::unique_ptr<llvm::MemoryBuffer> &object : objects) {
    std::string name = object->getBufferIdentifier().str();
    check(jit->addObjectFile(std::move(object)), "adding object '" + name + "'");
  }
  return std::unique_ptr<JitModule>(new JitModule(std::move(jit)));
}

void *JitModule::lookup(const std::string &symbol) {
  auto address = unwrap(jit_->lookup(symbol), "looking up '" + symbol + "'");
  return address.toPtr<void *>();
}

} // namespace nasc::runtime
