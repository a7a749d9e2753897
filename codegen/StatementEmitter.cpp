#include "codegen/StatementEmitter.h"

#include "ir/Error.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>

namespace nasc::codegen {

namespace {

/// The type of one index of a row-major tensor of `shape`'s dim 0: [D1 x [... x [Dn-1 x float]]].
llvm::Type *rowTypeOf(llvm::LLVMContext &ctx, const ir::Shape &shape) {
  llvm::Type *type = llvm::Type::getFloatTy(ctx);
  for (size_t d = shape.size(); d-- > 1;)
    type = llvm::ArrayType::get(type, static_cast<uint64_t>(shape[d]));
  return type;
}

llvm::Value *affineValue(llvm::IRBuilderBase &b, const ir::AffineExpr &e,
                         const std::vector<llvm::Value *> &iterators) {
  llvm::Value *sum = b.getInt64(e.constant);
  for (size_t i = 0; i < e.coeffs.size(); ++i) {
    if (e.coeffs[i] == 0)
      continue;
    llvm::Value *term =
        e.coeffs[i] == 1 ? iterators[i] : b.CreateNSWMul(iterators[i], b.getInt64(e.coeffs[i]));
    sum = b.CreateNSWAdd(sum, term);
  }
  return sum;
}

/// Address and alias metadata of one element access.
struct ElementPointer {
  llvm::Value *address;
  int tensor;
};

ElementPointer elementPointer(llvm::IRBuilderBase &b, const ir::Access &access,
                              const KernelTensors &tensors,
                              const std::vector<llvm::Value *> &iterators) {
  if (access.tensor < 0 || access.tensor >= static_cast<int>(tensors.base.size()))
    throw Error("codegen: access to tensor " + std::to_string(access.tensor) +
                " of a kernel with " + std::to_string(tensors.base.size()) + " tensors");
  const ir::Shape &shape = tensors.shape[access.tensor];
  if (access.index.size() != shape.size())
    throw Error("codegen: access to tensor " + std::to_string(access.tensor) + " has rank " +
                std::to_string(access.index.size()) + ", tensor has rank " +
                std::to_string(shape.size()));
  if (shape.empty())
    return {tensors.base[access.tensor], access.tensor};
  std::vector<llvm::Value *> indices;
  for (const ir::AffineExpr &index : access.index)
    indices.push_back(affineValue(b, index, iterators));
  llvm::Value *address =
      b.CreateInBoundsGEP(rowTypeOf(b.getContext(), shape), tensors.base[access.tensor], indices);
  return {address, access.tensor};
}

void tagAliasScopes(llvm::Instruction *access, const KernelTensors &tensors, int tensor) {
  access->setMetadata(llvm::LLVMContext::MD_alias_scope, tensors.scope[tensor]);
  access->setMetadata(llvm::LLVMContext::MD_noalias, tensors.noalias[tensor]);
}

llvm::Value *load(llvm::IRBuilderBase &b, const ElementPointer &p, const KernelTensors &tensors) {
  llvm::LoadInst *value = b.CreateAlignedLoad(b.getFloatTy(), p.address, llvm::Align(4));
  tagAliasScopes(value, tensors, p.tensor);
  return value;
}

llvm::Value *emitValue(llvm::IRBuilderBase &b, const ir::Expr &e, const KernelTensors &tensors,
                       const std::vector<llvm::Value *> &iterators) {
  if (e.op == ir::Expr::Op::Const)
    return llvm::ConstantFP::get(b.getFloatTy(), e.value);
  if (e.op == ir::Expr::Op::Load)
    return load(b, elementPointer(b, e.access, tensors, iterators), tensors);
  if (e.args.size() != 2)
    throw Error("codegen: a binary expression needs two operands, it has " +
                std::to_string(e.args.size()));
  llvm::Value *lhs = emitValue(b, e.args[0], tensors, iterators);
  llvm::Value *rhs = emitValue(b, e.args[1], tensors, iterators);
  switch (e.op) {
  case ir::Expr::Op::Add:
    return b.CreateFAdd(lhs, rhs);
  case ir::Expr::Op::Sub:
    return b.CreateFSub(lhs, rhs);
  case ir::Expr::Op::Mul:
    return b.CreateFMul(lhs, rhs);
  case ir::Expr::Op::Div:
    return b.CreateFDiv(lhs, rhs);
  case ir::Expr::Op::Max:
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, lhs, rhs);
  case ir::Expr::Op::Min:
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, lhs, rhs);
  default:
    throw Error("codegen: unknown expression operation");
  }
}

llvm::Value *combine(llvm::IRBuilderBase &b, ir::Update update, llvm::Value *old,
                     llvm::Value *value) {
  switch (update) {
  case ir::Update::Add:
    return b.CreateFAdd(old, value);
  case ir::Update::Max:
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, old, value);
  default:
    return value;
  }
}

} // namespace

KernelTensors loadKernelTensors(llvm::IRBuilderBase &builder, const ir::Kernel &kernel,
                                llvm::Value *tensorArray) {
  llvm::LLVMContext &ctx = builder.getContext();
  llvm::MDBuilder md(ctx);
  llvm::MDNode *domain = md.createAnonymousAliasScopeDomain(kernel.name);
  KernelTensors tensors;
  std::vector<llvm::Metadata *> scopes;
  for (size_t i = 0; i < kernel.tensors.size(); ++i) {
    llvm::Value *slot = builder.CreateConstInBoundsGEP1_64(builder.getPtrTy(), tensorArray, i);
    auto *base =
        builder.CreateAlignedLoad(builder.getPtrTy(), slot, llvm::Align(8), kernel.tensors[i].name);
    base->setMetadata(llvm::LLVMContext::MD_nonnull, llvm::MDNode::get(ctx, {}));
    tensors.base.push_back(base);
    tensors.shape.push_back(kernel.tensors[i].shape);
    scopes.push_back(md.createAnonymousAliasScope(domain, kernel.tensors[i].name));
  }
  for (size_t i = 0; i < scopes.size(); ++i) {
    std::vector<llvm::Metadata *> others;
    for (size_t j = 0; j < scopes.size(); ++j)
      if (j != i)
        others.push_back(scopes[j]);
    tensors.scope.push_back(llvm::MDNode::get(ctx, {scopes[i]}));
    tensors.noalias.push_back(llvm::MDNode::get(ctx, others));
  }
  return tensors;
}

void emitStatement(llvm::IRBuilderBase &builder, const ir::Statement &statement,
                   const KernelTensors &tensors, const std::vector<llvm::Value *> &iterators) {
  llvm::IRBuilderBase::FastMathFlagGuard restoreFlags(builder);
  llvm::FastMathFlags contract;
  contract.setAllowContract();
  builder.setFastMathFlags(contract);
  llvm::Value *value = emitValue(builder, statement.value, tensors, iterators);
  ElementPointer target = elementPointer(builder, statement.write, tensors, iterators);
  if (statement.update != ir::Update::Assign)
    value = combine(builder, statement.update, load(builder, target, tensors), value);
  llvm::StoreInst *store = builder.CreateAlignedStore(value, target.address, llvm::Align(4));
  tagAliasScopes(store, tensors, target.tensor);
}

} // namespace nasc::codegen
