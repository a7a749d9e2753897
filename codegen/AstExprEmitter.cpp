#include "codegen/AstExprEmitter.h"

#include "ir/Error.h"

#include <llvm/IR/IRBuilder.h>

#include <vector>

namespace nasc::codegen {

namespace {

/// isl's operand `i` of an operation expression.
isl::ast_expr operand(const isl::ast_expr &expr, int i) {
  return isl::manage(isl_ast_expr_op_get_arg(expr.get(), i));
}

int operandCount(const isl::ast_expr &expr) {
  return static_cast<int>(isl_ast_expr_op_get_n_arg(expr.get()));
}

/// floor(a / b) for any signs: the truncated quotient minus one when the remainder is
/// non-zero and has the opposite sign of the divisor.
llvm::Value *floorDiv(llvm::IRBuilderBase &b, llvm::Value *a, llvm::Value *d) {
  llvm::Value *q = b.CreateSDiv(a, d);
  llvm::Value *r = b.CreateSRem(a, d);
  llvm::Value *zero = b.getInt64(0);
  llvm::Value *inexact = b.CreateICmpNE(r, zero);
  llvm::Value *signsDiffer = b.CreateXor(b.CreateICmpSLT(r, zero), b.CreateICmpSLT(d, zero));
  llvm::Value *adjust = b.CreateZExt(b.CreateAnd(inexact, signsDiffer), b.getInt64Ty());
  return b.CreateSub(q, adjust);
}

llvm::Value *minMax(llvm::IRBuilderBase &b, const std::vector<llvm::Value *> &args, bool max) {
  llvm::Value *acc = args.front();
  for (size_t i = 1; i < args.size(); ++i) {
    llvm::Value *pick = max ? b.CreateICmpSGT(args[i], acc) : b.CreateICmpSLT(args[i], acc);
    acc = b.CreateSelect(pick, args[i], acc);
  }
  return acc;
}

llvm::Value *emitOperation(llvm::IRBuilderBase &b, const isl::ast_expr &expr,
                           const IteratorValues &iterators) {
  std::vector<llvm::Value *> a;
  isl_ast_expr_op_type type = isl_ast_expr_op_get_type(expr.get());
  if (type == isl_ast_expr_op_call || type == isl_ast_expr_op_access ||
      type == isl_ast_expr_op_member || type == isl_ast_expr_op_address_of)
    throw Error("codegen: unsupported isl AST operation in expression '" + expr.to_C_str() + "'");
  for (int i = 0; i < operandCount(expr); ++i)
    a.push_back(emitAstExpr(b, operand(expr, i), iterators));
  switch (type) {
  case isl_ast_expr_op_and:
  case isl_ast_expr_op_and_then:
    return b.CreateAnd(a[0], a[1]);
  case isl_ast_expr_op_or:
  case isl_ast_expr_op_or_else:
    return b.CreateOr(a[0], a[1]);
  case isl_ast_expr_op_max:
    return minMax(b, a, true);
  case isl_ast_expr_op_min:
    return minMax(b, a, false);
  case isl_ast_expr_op_minus:
    return b.CreateNSWNeg(a[0]);
  case isl_ast_expr_op_add:
    return b.CreateNSWAdd(a[0], a[1]);
  case isl_ast_expr_op_sub:
    return b.CreateNSWSub(a[0], a[1]);
  case isl_ast_expr_op_mul:
    return b.CreateNSWMul(a[0], a[1]);
  case isl_ast_expr_op_div:
  case isl_ast_expr_op_pdiv_q:
    return b.CreateSDiv(a[0], a[1]);
  case isl_ast_expr_op_fdiv_q:
    return floorDiv(b, a[0], a[1]);
  case isl_ast_expr_op_pdiv_r:
  case isl_ast_expr_op_zdiv_r:
    return b.CreateSRem(a[0], a[1]);
  case isl_ast_expr_op_cond:
  case isl_ast_expr_op_select:
    return b.CreateSelect(a[0], a[1], a[2]);
  case isl_ast_expr_op_eq:
    return b.CreateICmpEQ(a[0], a[1]);
  case isl_ast_expr_op_le:
    return b.CreateICmpSLE(a[0], a[1]);
  case isl_ast_expr_op_lt:
    return b.CreateICmpSLT(a[0], a[1]);
  case isl_ast_expr_op_ge:
    return b.CreateICmpSGE(a[0], a[1]);
  case isl_ast_expr_op_gt:
    return b.CreateICmpSGT(a[0], a[1]);
  default:
    throw Error("codegen: unknown isl AST operation in expression '" + expr.to_C_str() + "'");
  }
}

llvm::Value *emitId(const isl::ast_expr &expr, const IteratorValues &iterators) {
  isl::id id = isl::manage(isl_ast_expr_id_get_id(expr.get()));
  auto it = iterators.find(id.name());
  if (it == iterators.end())
    throw Error("codegen: isl AST uses unknown identifier '" + id.name() + "'");
  return it->second;
}

llvm::Value *emitInt(llvm::IRBuilderBase &b, const isl::ast_expr &expr) {
  isl::val v = isl::manage(isl_ast_expr_int_get_val(expr.get()));
  if (!v.is_int() || v.gt(INT64_MAX) || v.lt(INT64_MIN))
    throw Error("codegen: isl AST constant '" + expr.to_C_str() + "' does not fit in int64");
  return b.getInt64(v.get_num_si());
}

} // namespace

llvm::Value *emitAstExpr(llvm::IRBuilderBase &builder, const isl::ast_expr &expr,
                         const IteratorValues &iterators) {
  switch (isl_ast_expr_get_type(expr.get())) {
  case isl_ast_expr_int:
    return emitInt(builder, expr);
  case isl_ast_expr_id:
    return emitId(expr, iterators);
  case isl_ast_expr_op:
    return emitOperation(builder, expr, iterators);
  default:
    throw Error("codegen: invalid isl AST expression");
  }
}

} // namespace nasc::codegen
