#include "codegen/AstExprEmitter.h"

#include "ir/Error.h"

#include <llvm/IR/IRBuilder.h>

#include <vector>

namespace nasc::codegen {

namespace {

using Operands = std::vector<llvm::Value *>;

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

llvm::Value *minMax(llvm::IRBuilderBase &b, const Operands &args, bool max) {
  llvm::Value *acc = args.front();
  for (size_t i = 1; i < args.size(); ++i) {
    llvm::Value *pick = max ? b.CreateICmpSGT(args[i], acc) : b.CreateICmpSLT(args[i], acc);
    acc = b.CreateSelect(pick, args[i], acc);
  }
  return acc;
}

/// One or more kinds of isl AST operation (`matches`) and how their value is built from their
/// operand values.
struct OperationRule {
  bool (*matches)(const isl::ast_expr_op &);
  llvm::Value *(*emit)(llvm::IRBuilderBase &, const Operands &);
};

/// Whether `op` is one of the operations `Ops` (isl::ast_expr_op subclasses).
template <class... Ops> bool is(const isl::ast_expr_op &op) { return (op.isa<Ops>() || ...); }

/// The rules of the operations emitAstExpr supports; see its contract for their semantics.
const OperationRule kOperationRules[] = {
    {is<isl::ast_expr_op_and, isl::ast_expr_op_and_then>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return b.CreateAnd(a[0], a[1]); }},
    {is<isl::ast_expr_op_or, isl::ast_expr_op_or_else>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return b.CreateOr(a[0], a[1]); }},
    {is<isl::ast_expr_op_cond, isl::ast_expr_op_select>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return b.CreateSelect(a[0], a[1], a[2]); }},
    {is<isl::ast_expr_op_max>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return minMax(b, a, true); }},
    {is<isl::ast_expr_op_min>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return minMax(b, a, false); }},
    {is<isl::ast_expr_op_minus>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return b.CreateNSWNeg(a[0]); }},
    {is<isl::ast_expr_op_add>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return b.CreateNSWAdd(a[0], a[1]); }},
    {is<isl::ast_expr_op_sub>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return b.CreateNSWSub(a[0], a[1]); }},
    {is<isl::ast_expr_op_mul>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return b.CreateNSWMul(a[0], a[1]); }},
    {is<isl::ast_expr_op_div, isl::ast_expr_op_pdiv_q>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return b.CreateSDiv(a[0], a[1]); }},
    {is<isl::ast_expr_op_fdiv_q>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return floorDiv(b, a[0], a[1]); }},
    {is<isl::ast_expr_op_pdiv_r, isl::ast_expr_op_zdiv_r>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return b.CreateSRem(a[0], a[1]); }},
    {is<isl::ast_expr_op_eq>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return b.CreateICmpEQ(a[0], a[1]); }},
    {is<isl::ast_expr_op_le>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return b.CreateICmpSLE(a[0], a[1]); }},
    {is<isl::ast_expr_op_lt>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return b.CreateICmpSLT(a[0], a[1]); }},
    {is<isl::ast_expr_op_ge>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return b.CreateICmpSGE(a[0], a[1]); }},
    {is<isl::ast_expr_op_gt>,
     [](llvm::IRBuilderBase &b, const Operands &a) { return b.CreateICmpSGT(a[0], a[1]); }},
};

/// Whether `op` is one of the operations isl only generates for user statements and memory
/// accesses, which have no value here.
bool isUnsupported(const isl::ast_expr_op &op) {
  return is<isl::ast_expr_op_call, isl::ast_expr_op_access, isl::ast_expr_op_member,
            isl::ast_expr_op_address_of>(op);
}

llvm::Value *emitOperation(llvm::IRBuilderBase &b, const isl::ast_expr_op &op,
                           const IteratorValues &iterators) {
  if (isUnsupported(op))
    throw Error("codegen: unsupported isl AST operation in expression '" + op.to_C_str() + "'");
  Operands a;
  for (unsigned i = 0; i < op.n_arg(); ++i)
    a.push_back(emitAstExpr(b, op.arg(static_cast<int>(i)), iterators));
  for (const OperationRule &rule : kOperationRules)
    if (rule.matches(op))
      return rule.emit(b, a);
  throw Error("codegen: unknown isl AST operation in expression '" + op.to_C_str() + "'");
}

llvm::Value *emitId(const isl::ast_expr_id &expr, const IteratorValues &iterators) {
  std::string name = expr.id().name();
  auto it = iterators.find(name);
  if (it == iterators.end())
    throw Error("codegen: isl AST uses unknown identifier '" + name + "'");
  return it->second;
}

llvm::Value *emitInt(llvm::IRBuilderBase &b, const isl::ast_expr_int &expr) {
  isl::val v = expr.val();
  if (!v.is_int() || v.gt(INT64_MAX) || v.lt(INT64_MIN))
    throw Error("codegen: isl AST constant '" + expr.to_C_str() + "' does not fit in int64");
  return b.getInt64(v.get_num_si());
}

} // namespace

llvm::Value *emitAstExpr(llvm::IRBuilderBase &builder, const isl::ast_expr &expr,
                         const IteratorValues &iterators) {
  if (expr.isa<isl::ast_expr_int>())
    return emitInt(builder, expr.as<isl::ast_expr_int>());
  if (expr.isa<isl::ast_expr_id>())
    return emitId(expr.as<isl::ast_expr_id>(), iterators);
  if (expr.isa<isl::ast_expr_op>())
    return emitOperation(builder, expr.as<isl::ast_expr_op>(), iterators);
  throw Error("codegen: invalid isl AST expression");
}

} // namespace nasc::codegen
