#include "codegen/GeneratedCode.h"

#include "codegen/ProgramEmitter.h"
#include "codegen/Target.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace nasc::codegen {

struct GeneratedCode::Impl {
  std::unique_ptr<llvm::LLVMContext> context = std::make_unique<llvm::LLVMContext>();
  Target description;
  ir::PassTimes times;
  std::unique_ptr<llvm::TargetMachine> target;
  std::unique_ptr<llvm::Module> module;
};

GeneratedCode::GeneratedCode(const ir::Program &program, const std::vector<isl::ast_node> &asts,
                             const std::string &symbolPrefix, const Target &target, bool profile)
    : impl_(std::make_unique<Impl>()) {
  impl_->description = target;
  impl_->target = createTargetMachine(target);
  impl_->module = impl_->times.time("LLVM IR emission", [&] {
    return emitProgram(*impl_->context, program, asts, symbolPrefix, profile);
  });
  impl_->times.time("LLVM O3", [&] { optimizeModule(*impl_->module, *impl_->target, target); });
}

GeneratedCode::~GeneratedCode() {
  if (impl_)
    impl_->module.reset();
}

GeneratedCode::GeneratedCode(GeneratedCode &&) noexcept = default;

const Target &GeneratedCode::target() const { return impl_->description; }

const ir::PassTimes &GeneratedCode::times() const { return impl_->times; }

std::string GeneratedCode::llvmIr() const { return moduleToString(*impl_->module); }

std::string GeneratedCode::assembly() { return moduleToAssembly(*impl_->module, *impl_->target); }

void GeneratedCode::writeObject(const std::string &path) {
  impl_->times.time("object file", [&] { writeObjectFile(*impl_->module, *impl_->target, path); });
}

std::unique_ptr<llvm::Module> GeneratedCode::takeModule() { return std::move(impl_->module); }

std::unique_ptr<llvm::LLVMContext> GeneratedCode::takeContext() {
  return std::move(impl_->context);
}

} // namespace nasc::codegen
