#include "codegen/ProgramEmitter.h"

#include "codegen/KernelEmitter.h"
#include "codegen/MemoryPlan.h"
#include "ir/Error.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <map>
#include <set>
#include <utility>

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

/// A constant buffer's float32 data as a global of raw bytes: the object writer emits a byte
/// array as one blob, where a float array goes element by element through APFloat (most of
/// the object file's time for ResNet-sized weights). Loads read it as float32 all the same.
llvm::GlobalVariable *constantBuffer(llvm::Module &module, const ir::Buffer &buffer,
                                     const std::string &name) {
  llvm::Constant *init = llvm::ConstantDataArray::get(
      module.getContext(),
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(buffer.data.f.data()),
                              buffer.data.f.size() * sizeof(float)));
  auto *global = new llvm::GlobalVariable(module, init->getType(), true,
                                          llvm::GlobalValue::InternalLinkage, init, name);
  global->setAlignment(llvm::Align(kWorkspaceAlignment));
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  return global;
}

/// Builds `<prefix>run`: resolves each buffer to a pointer, then calls the kernels in order.
class RunEmitter {
public:
  /// Emits `run`, the constants and `workspace_bytes` into parts[0], kernel functions into
  /// the parts in turn.
  RunEmitter(const std::vector<llvm::Module *> &parts, const ir::Program &program,
             const std::string &prefix, bool profile)
      : parts_(parts), module_(*parts.front()), program_(program), prefix_(prefix),
        builder_(module_.getContext()) {
    if (profile)
      profileHook_ = module_.getOrInsertFunction(
          kProfileSymbol,
          llvm::FunctionType::get(builder_.getVoidTy(), {builder_.getInt32Ty()}, false));
    llvm::Type *ptr = builder_.getPtrTy();
    auto *type = llvm::FunctionType::get(builder_.getVoidTy(),
                                         {ptr, ptr, ptr, builder_.getInt32Ty()}, false);
    run_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, prefix + "run", module_);
    run_->addFnAttr(llvm::Attribute::NoUnwind);
    run_->getArg(0)->setName("inputs");
    run_->getArg(1)->setName("outputs");
    run_->getArg(2)->setName("workspace");
    run_->getArg(3)->setName("threads");
    builder_.SetInsertPoint(llvm::BasicBlock::Create(module_.getContext(), "entry", run_));
  }

  void emit(const std::vector<isl::ast_node> &asts) {
    resolveBuffers();
    for (size_t c = 0; c < program_.calls.size(); ++c) {
      const ir::KernelCall &call = program_.calls[c];
      ir::KernelStructure structure = ir::kernelStructure(call.kernel);
      const KernelFunction &kernel = kernelFunction(call, asts[c], structure);
      builder_.CreateCall(
          kernel.function,
          {tensorArray(call, argumentsFor(call, structure, kernel)), run_->getArg(3)});
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
  /// A kernel function and the first-use order of the kernel it was emitted for.
  struct KernelFunction {
    llvm::Function *function = nullptr;
    std::vector<size_t> tensorOrder;
  };

  /// The function of `call`'s kernel scheduled by `ast`: emitted on first use, shared by later
  /// calls of a kernel with the same structure (ir::kernelStructure) and the same AST object
  /// (the pipeline schedules identical kernels once).
  const KernelFunction &kernelFunction(const ir::KernelCall &call, const isl::ast_node &ast,
                                       const ir::KernelStructure &structure) {
    auto key = std::make_pair(structure.key, ast.get());
    auto found = functions_.find(key);
    if (found != functions_.end())
      return found->second;
    llvm::Module &part = *parts_[kernelPart(functions_.size())];
    llvm::Function *function = emitKernel(part, call.kernel, ast, prefix_ + call.kernel.name);
    if (&part == &module_)
      function->setLinkage(llvm::GlobalValue::InternalLinkage);
    else
      function = declareInRunModule(*function);
    return functions_.emplace(key, KernelFunction{function, structure.tensorOrder}).first->second;
  }

  /// The part of the kernel function emitted `f`-th: with one part, that one; else the parts
  /// after the first in turn (the first holds the constants, whose bytes take the code
  /// generator as long as a few kernels).
  size_t kernelPart(size_t f) const { return parts_.size() == 1 ? 0 : 1 + f % (parts_.size() - 1); }

  /// A declaration in the module of `run` of `function`, defined (with external linkage) in
  /// another part.
  llvm::Function *declareInRunModule(const llvm::Function &function) {
    auto *declaration =
        llvm::Function::Create(kernelFunctionType(module_.getContext()),
                               llvm::Function::ExternalLinkage, function.getName(), module_);
    declaration->addFnAttr(llvm::Attribute::NoUnwind);
    return declaration;
  }

  /// `call`'s buffers in the tensor order of `kernel`'s function: the tensor it declares at
  /// kernel.tensorOrder[q] is this call's tensor at structure.tensorOrder[q].
  std::vector<int> argumentsFor(const ir::KernelCall &call, const ir::KernelStructure &structure,
                                const KernelFunction &kernel) {
    std::vector<int> args(call.args.size());
    for (size_t q = 0; q < structure.tensorOrder.size(); ++q)
      args[kernel.tensorOrder[q]] = call.args[structure.tensorOrder[q]];
    return args;
  }

  llvm::Value *tensorArray(const ir::KernelCall &call, const std::vector<int> &args) {
    auto *type = llvm::ArrayType::get(builder_.getPtrTy(), args.size());
    llvm::Value *array = builder_.CreateAlloca(type, nullptr, call.kernel.name + ".tensors");
    for (size_t i = 0; i < args.size(); ++i) {
      llvm::Value *pointer = pointers_[args[i]];
      if (!pointer)
        throw Error("program " + program_.name + ": buffer '" + program_.buffers[args[i]].name +
                    "' is an input or output not listed in the program's inputs/outputs");
      builder_.CreateAlignedStore(
          pointer, builder_.CreateConstInBoundsGEP1_64(builder_.getPtrTy(), array, i),
          llvm::Align(8));
    }
    return array;
  }

  std::vector<llvm::Module *> parts_;
  llvm::Module &module_;
  const ir::Program &program_;
  std::string prefix_;
  llvm::IRBuilder<> builder_;
  llvm::Function *run_ = nullptr;
  llvm::FunctionCallee profileHook_;
  std::vector<llvm::Value *> pointers_;
  /// Emitted kernel functions by kernel structure key and address of the isl AST object.
  std::map<std::pair<std::string, const void *>, KernelFunction> functions_;
};

} // namespace

std::vector<std::unique_ptr<llvm::Module>>
emitProgram(const std::vector<llvm::LLVMContext *> &contexts, const ir::Program &program,
            const std::vector<isl::ast_node> &asts, const std::string &symbolPrefix, bool profile) {
  if (contexts.empty())
    throw Error("program " + program.name + ": no LLVM context to emit it into");
  validateProgram(program, asts);
  std::vector<std::unique_ptr<llvm::Module>> modules;
  std::vector<llvm::Module *> parts;
  for (size_t p = 0; p < contexts.size(); ++p) {
    std::string name = p == 0 ? program.name : program.name + ".part" + std::to_string(p);
    modules.push_back(std::make_unique<llvm::Module>(name, *contexts[p]));
    parts.push_back(modules.back().get());
  }
  RunEmitter(parts, program, symbolPrefix, profile).emit(asts);
  return modules;
}

} // namespace nasc::codegen
