#include "codegen/GeneratedCode.h"

#include "codegen/ProgramEmitter.h"
#include "codegen/Target.h"
#include "ir/ParallelWork.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>

namespace nasc::codegen {

namespace {

/// One module of the program's code with what optimizes and compiles it, used by one thread at
/// a time (members destroyed in reverse order: the module before its context).
struct Part {
  std::unique_ptr<llvm::LLVMContext> context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::TargetMachine> target;
  std::unique_ptr<llvm::Module> module;
};

} // namespace

struct GeneratedCode::Impl {
  Target description;
  ir::PassTimes times;
  int jobs = 0; ///< ir::forEachInParallel threads (0: every hardware thread)
  std::vector<Part> parts;
};

GeneratedCode::GeneratedCode(const ir::Program &program, const std::vector<isl::ast_node> &asts,
                             const std::string &symbolPrefix, const Target &target, bool profile,
                             int jobs)
    : impl_(std::make_unique<Impl>()) {
  impl_->description = target;
  impl_->jobs = jobs;
  impl_->parts.resize(std::clamp<size_t>(program.calls.size(), 1, kCodegenParts));
  std::vector<llvm::LLVMContext *> contexts;
  for (Part &part : impl_->parts) {
    part.target = createTargetMachine(target);
    contexts.push_back(part.context.get());
  }
  std::vector<std::unique_ptr<llvm::Module>> modules = impl_->times.time("LLVM IR emission", [&] {
    return emitProgram(contexts, program, asts, symbolPrefix, profile);
  });
  for (size_t p = 0; p < modules.size(); ++p)
    impl_->parts[p].module = std::move(modules[p]);
  impl_->times.time("LLVM O3", [&] {
    ir::forEachInParallel(impl_->parts.size(), impl_->jobs, [&](size_t p) {
      Part &part = impl_->parts[p];
      optimizeModule(*part.module, *part.target, target);
    });
  });
}

GeneratedCode::~GeneratedCode() = default;

GeneratedCode::GeneratedCode(GeneratedCode &&) noexcept = default;

const Target &GeneratedCode::target() const { return impl_->description; }

const ir::PassTimes &GeneratedCode::times() const { return impl_->times; }

std::string GeneratedCode::llvmIr() const {
  std::string text;
  for (const Part &part : impl_->parts)
    text += moduleToString(*part.module);
  return text;
}

std::string GeneratedCode::assembly() {
  std::string text;
  for (Part &part : impl_->parts)
    text += moduleToAssembly(*part.module, *part.target);
  return text;
}

std::vector<std::string> GeneratedCode::writeObjects(const std::string &stem) {
  std::vector<std::string> paths;
  for (size_t p = 0; p < impl_->parts.size(); ++p)
    paths.push_back(stem + std::to_string(p) + ".o");
  impl_->times.time("object file", [&] {
    ir::forEachInParallel(impl_->parts.size(), impl_->jobs, [&](size_t p) {
      writeObjectFile(*impl_->parts[p].module, *impl_->parts[p].target, paths[p]);
    });
  });
  return paths;
}

std::vector<std::unique_ptr<llvm::MemoryBuffer>> GeneratedCode::takeObjects() {
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects(impl_->parts.size());
  impl_->times.time("object file", [&] {
    ir::forEachInParallel(impl_->parts.size(), impl_->jobs, [&](size_t p) {
      objects[p] = compileObject(*impl_->parts[p].module, *impl_->parts[p].target);
    });
  });
  impl_->parts.clear();
  return objects;
}

} // namespace nasc::codegen
