#include "codegen/ParallelCall.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace nasc::codegen {

llvm::FunctionCallee parallelForFunction(llvm::Module &module) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
  llvm::Type *i64 = llvm::Type::getInt64Ty(ctx);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx),
                                       {ptr, ptr, i64, i64, llvm::Type::getInt32Ty(ctx)}, false);
  return module.getOrInsertFunction(kParallelForSymbol, type);
}

llvm::Function *createOutlinedBody(llvm::Module &module, const std::string &name) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Type *i64 = llvm::Type::getInt64Ty(ctx);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx),
                                       {llvm::PointerType::get(ctx, 0), i64, i64}, false);
  auto *body = llvm::Function::Create(type, llvm::Function::InternalLinkage, name, module);
  body->addFnAttr(llvm::Attribute::NoUnwind);
  body->addParamAttr(0, llvm::Attribute::NoAlias);
  body->addParamAttr(0, llvm::Attribute::ReadOnly);
  body->getArg(0)->setName("ctx");
  body->getArg(1)->setName("begin");
  body->getArg(2)->setName("end");
  return body;
}

llvm::StructType *contextType(llvm::LLVMContext &context, size_t values) {
  std::vector<llvm::Type *> fields(values + 1, llvm::Type::getInt64Ty(context));
  fields[0] = llvm::PointerType::get(context, 0);
  return llvm::StructType::get(context, fields);
}

llvm::Value *packContext(llvm::IRBuilderBase &builder, llvm::Value *tensors,
                         const std::vector<llvm::Value *> &values) {
  llvm::StructType *type = contextType(builder.getContext(), values.size());
  llvm::BasicBlock &entry = builder.GetInsertBlock()->getParent()->getEntryBlock();
  llvm::IRBuilder<> entryBuilder(&entry, entry.getFirstInsertionPt());
  llvm::Value *record = entryBuilder.CreateAlloca(type, nullptr, "parallel.ctx");
  builder.CreateStore(tensors, builder.CreateStructGEP(type, record, 0));
  for (size_t i = 0; i < values.size(); ++i)
    builder.CreateStore(values[i],
                        builder.CreateStructGEP(type, record, static_cast<unsigned>(i + 1)));
  return record;
}

std::vector<llvm::Value *> unpackContext(llvm::IRBuilderBase &builder, llvm::Value *context,
                                         size_t count) {
  llvm::StructType *type = contextType(builder.getContext(), count);
  std::vector<llvm::Value *> fields;
  fields.push_back(
      builder.CreateLoad(builder.getPtrTy(), builder.CreateStructGEP(type, context, 0), "tensors"));
  for (size_t i = 0; i < count; ++i) {
    llvm::Value *field = builder.CreateStructGEP(type, context, static_cast<unsigned>(i + 1));
    fields.push_back(builder.CreateLoad(builder.getInt64Ty(), field));
  }
  return fields;
}

} // namespace nasc::codegen
