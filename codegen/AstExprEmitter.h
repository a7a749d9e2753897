// isl AST expressions (loop bounds, conditions, statement arguments) -> LLVM i64 / i1 values.
#pragma once

#include <isl/cpp.h>

#include <map>
#include <string>

namespace llvm {
class IRBuilderBase;
class Value;
} // namespace llvm

namespace nasc::codegen {

/// Values of the AST's loop iterators in scope, by isl id name ("c0", "c1", ...).
using IteratorValues = std::map<std::string, llvm::Value *>;

/// Emits `expr` at `builder`'s insertion point. Integer expressions give i64, comparisons and
/// and/or give i1. Semantics follow isl's AST operations (isl::ast_expr_op_*): fdiv_q rounds
/// towards -infinity; pdiv_q / pdiv_r have a non-negative dividend; zdiv_r is only compared with
/// zero; and_then / or_else are evaluated eagerly (isl AST expressions have no side effects).
/// Throws nasc::Error for an unknown iterator id or an unsupported operation
/// (call, access, member, address_of).
llvm::Value *emitAstExpr(llvm::IRBuilderBase &builder, const isl::ast_expr &expr,
                         const IteratorValues &iterators);

} // namespace nasc::codegen
