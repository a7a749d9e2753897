#include "runtime/jit/JitModule.h"

#include "codegen/Target.h"
#include "ir/Error.h"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

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

} // namespace

JitModule::JitModule(std::unique_ptr<llvm::orc::LLJIT> jit) : jit_(std::move(jit)) {}

JitModule::~JitModule() = default;

std::unique_ptr<JitModule> JitModule::create(std::unique_ptr<llvm::Module> module,
                                             std::unique_ptr<llvm::LLVMContext> context) {
  codegen::initializeLlvm();
  auto host = unwrap(llvm::orc::JITTargetMachineBuilder::detectHost(), "detecting the host");
  host.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto jit = unwrap(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(host)).create(),
                    "creating LLJIT");
  if (module->getDataLayout().isDefault())
    module->setDataLayout(jit->getDataLayout());
  std::string name = module->getName().str();
  check(jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))),
        "adding module '" + name + "'");
  return std::unique_ptr<JitModule>(new JitModule(std::move(jit)));
}

void *JitModule::lookup(const std::string &symbol) {
  auto address = unwrap(jit_->lookup(symbol), "looking up '" + symbol + "'");
  return address.toPtr<void *>();
}

} // namespace nasc::runtime
