#include "codegen/ProgramEmitter.h"

#include "codegen/KernelEmitter.h"
#include "codegen/MemoryPlan.h"
#include "ir/Error.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <set>

namespace nasc::codegen {

namespace {

void validateCall(const ir::Program &program, size_t c) {
  const ir::KernelCall &call = program.calls[c];
  const ir::Kernel &kernel = call.kernel;
  std::string where =
      "program " + program.name + ": call " + std::to_string(c) + " (kernel " + kernel.name + ")";
  if (call.args.size() != kernel.tensors.size())
    throw Error(where + " binds " + std::to_string(call.args.size()) + " buffers to " +
                std::to_string(kernel.tensors.size()) + " tensors");
  std::set<int> bound;
  for (size_t i = 0; i < call.args.size(); ++i) {
    int b = call.args[i];
    if (b < 0 || b >= static_cast<int>(program.buffers.size()))
      throw Error(where + ": buffer index " + std::to_string(b) + " is out of range");
    if (!bound.insert(b).second)
      throw Error(where + ": buffer '" + program.buffers[b].name +
                  "' is bound to two tensors (kernels assume disjoint tensors)");
    if (ir::numElements(program.buffers[b].shape) != ir::numElements(kernel.tensors[i].shape))
      throw Error(where + ": buffer '" + program.buffers[b].name + "' of shape " +
                  ir::shapeToString(program.buffers[b].shape) + " is bound to tensor '" +
                  kernel.tensors[i].name + "' of shape " +
                  ir::shapeToString(kernel.tensors[i].shape));
  }
}

void validateProgram(const ir::Program &program, const std::vector<isl::ast_node> &asts) {
  if (asts.size() != program.calls.size())
    throw Error("program " + program.name + ": " + std::to_string(asts.size()) + " ASTs for " +
                std::to_string(program.calls.size()) + " kernel calls");
  for (size_t c = 0; c < program.calls.size(); ++c)
    validateCall(program, c);
  for (const ir::Buffer &buffer : program.buffers)
    if (buffer.kind == ir::BufferKind::Constant &&
        (buffer.data.dtype != ir::DType::Float32 ||
         static_cast<int64_t>(buffer.data.f.size()) != ir::numElements(buffer.shape)))
      throw Error("program " + program.name + ": constant '" + buffer.name +
                  "' holds no float32 data of shape " + ir::shapeToString(buffer.shape));
  for (const std::vector<int> *list : {&program.inputs, &program.outputs})
    for (int b : *list)
      if (b < 0 || b >= static_cast<int>(program.buffers.size()))
        throw Error("program " + program.name + ": input/output buffer index " + std::to_string(b) +
                    " is out of range");
}

llvm::GlobalVariable *constantBuffer(llvm::Module &module, const ir::Buffer &buffer,
                                     const std::string &name) {
  llvm::Constant *init =
      llvm::ConstantDataArray::get(module.getContext(), llvm::ArrayRef<float>(buffer.data.f));
  auto *global = new llvm::GlobalVariable(module, init->getType(), true,
                                          llvm::GlobalValue::InternalLinkage, init, name);
  global->setAlignment(llvm::Align(kWorkspaceAlignment));
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  return global;
}

/// Builds `<prefix>run`: resolves each buffer to a pointer, then calls the kernels in order.
class RunEmitter {
public:
  RunEmitter(llvm::Module &module, const ir::Program &program, const std::string &prefix, bool profile)
      : module_(module), program_(program), prefix_(prefix), builder_(module.getContext()) {
    if (profile)
      profileHook_ = module.getOrInsertFunction(
          kProfileSymbol, llvm::FunctionType::get(builder_.getVoidTy(), {builder_.getInt32Ty()}, false));
    llvm::Type *ptr = builder_.getPtrTy();
    auto *type = llvm::FunctionType::get(builder_.getVoidTy(),
                                         {ptr, ptr, ptr, builder_.getInt32Ty()}, false);
    run_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, prefix + "run", module);
    run_->addFnAttr(llvm::Attribute::NoUnwind);
    run_->getArg(0)->setName("inputs");
    run_->getArg(1)->setName("outputs");
    run_->getArg(2)->setName("workspace");
    run_->getArg(3)->setName("threads");
    builder_.SetInsertPoint(llvm::BasicBlock::Create(module.getContext(), "entry", run_));
  }

  void emit(const std::vector<isl::ast_node> &asts) {
    resolveBuffers();
    for (size_t c = 0; c < program_.calls.size(); ++c) {
      const ir::KernelCall &call = program_.calls[c];
      llvm::Function *kernel =
          emitKernel(module_, call.kernel, asts[c], prefix_ + call.kernel.name);
      kernel->setLinkage(llvm::GlobalValue::InternalLinkage);
      builder_.CreateCall(kernel, {tensorArray(call), run_->getArg(3)});
      if (profileHook_)
        builder_.CreateCall(profileHook_, {builder_.getInt32(static_cast<uint32_t>(c))});
    }
    builder_.CreateRetVoid();
  }

private:
  void resolveBuffers() {
    MemoryPlan plan = planMemory(program_);
    pointers_.assign(program_.buffers.size(), nullptr);
    bindArguments(program_.inputs, run_->getArg(0), "input");
    bindArguments(program_.outputs, run_->getArg(1), "output");
    for (size_t b = 0; b < program_.buffers.size(); ++b) {
      const ir::Buffer &buffer = program_.buffers[b];
      std::string name = ir::toIdentifier(buffer.name);
      if (buffer.kind == ir::BufferKind::Constant)
        pointers_[b] = constantBuffer(module_, buffer, prefix_ + "const_" + name);
      else if (buffer.kind == ir::BufferKind::Temp && plan.offsets[b] >= 0)
        pointers_[b] = builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), run_->getArg(2),
                                                           plan.offsets[b], name);
    }
    auto *bytes = new llvm::GlobalVariable(
        module_, builder_.getInt64Ty(), true, llvm::GlobalValue::ExternalLinkage,
        builder_.getInt64(plan.workspaceBytes), prefix_ + "workspace_bytes");
    bytes->setAlignment(llvm::Align(8));
  }

  /// Loads `array[i]` as the pointer of buffer `indices[i]`.
  void bindArguments(const std::vector<int> &indices, llvm::Value *array, const char *role) {
    for (size_t i = 0; i < indices.size(); ++i) {
      llvm::Value *slot = builder_.CreateConstInBoundsGEP1_64(builder_.getPtrTy(), array, i);
      pointers_[indices[i]] = builder_.CreateAlignedLoad(
          builder_.getPtrTy(), slot, llvm::Align(8),
          std::string(role) + "." + ir::toIdentifier(program_.buffers[indices[i]].name));
    }
  }

  /// A stack array of the call's buffer pointers, in kernel tensor order.
  llvm::Value *tensorArray(const ir::KernelCall &call) {
    auto *type = llvm::ArrayType::get(builder_.getPtrTy(), call.args.size());
    llvm::Value *array = builder_.CreateAlloca(type, nullptr, call.kernel.name + ".tensors");
    for (size_t i = 0; i < call.args.size(); ++i) {
      llvm::Value *pointer = pointers_[call.args[i]];
      if (!pointer)
        throw Error("program " + program_.name + ": buffer '" +
                    program_.buffers[call.args[i]].name +
                    "' is an input or output not listed in the program's inputs/outputs");
      builder_.CreateAlignedStore(
          pointer, builder_.CreateConstInBoundsGEP1_64(builder_.getPtrTy(), array, i),
          llvm::Align(8));
    }
    return array;
  }

  llvm::Module &module_;
  const ir::Program &program_;
  std::string prefix_;
  llvm::IRBuilder<> builder_;
  llvm::Function *run_ = nullptr;
  llvm::FunctionCallee profileHook_;
  std::vector<llvm::Value *> pointers_;
};

} // namespace

std::unique_ptr<llvm::Module> emitProgram(llvm::LLVMContext &context, const ir::Program &program,
                                          const std::vector<isl::ast_node> &asts,
                                          const std::string &symbolPrefix, bool profile) {
  validateProgram(program, asts);
  auto module = std::make_unique<llvm::Module>(program.name, context);
  RunEmitter(*module, program, symbolPrefix, profile).emit(asts);
  return module;
}

} // namespace nasc::codegen
