// isl AST of one Kernel -> an LLVM function
// `void name(float* noalias const* tensors, i32 threads)`, parallel loops outlined.
#pragma once

#include "ir/Kernel.h"

#include <isl/cpp.h>

#include <string>

namespace llvm {
class Function;
class FunctionType;
class LLVMContext;
class Module;
} // namespace llvm

namespace nasc::codegen {

/// The type of every kernel function, `void (ptr tensors, i32 threads)`, in `context` (also
/// for declaring a kernel defined in another module).
llvm::FunctionType *kernelFunctionType(llvm::LLVMContext &context);

/// Emits into `module` the function `void functionName(ptr noalias readonly tensors,
/// i32 threads)` that executes `kernel` in the order of `ast` (poly::generateAst of the
/// kernel's Scop, possibly after schedule transformations). `tensors[i]` points to kernel
/// tensor i: float32, row-major, numElements(kernel.tensors[i].shape) elements.
///
/// Parallel loops: a for-node with unit step and an upper bound `it <= e` / `it < e`, directly
/// under an isl mark named poly::kParallelMark, is outlined into an internal function
/// `void functionName.parallel(ptr ctx, i64 begin, i64 end)` running iterations [begin, end);
/// ctx records the tensor array and the values of the enclosing loops. The kernel calls
/// nasc_parallel_for(body, ctx, lb, ub, threads) (codegen/ParallelCall.h), which the module
/// declares and the runtime must define; marks inside an outlined body, and marks over other
/// loop shapes, are emitted sequentially. The caller must have proved the loop parallel
/// (poly::markParallelLoops, compiler::parallelize).
///
/// Vector loops: a for-node under an isl mark named poly::vectorMarkName(w) (possibly with
/// other marks, e.g. a parallel one, between them) carries `llvm.loop.vectorize.enable` and, if
/// w > 0, `llvm.loop.vectorize.width` = w (i32). The caller must have proved the loop carries
/// no dependence (compiler::vectorize). Marks of other names, and marks over other nodes, emit
/// the node below them as is.
///
/// Code shape: i64 loop induction variables; each user node `Sname(e_0, ..., e_{d-1})` binds
/// statement Sname's iterators to the e_i and emits `write (update)= value`, each element one
/// multi-index inbounds GEP of its row-major tensor (emitStatement). Innermost loops carry
/// `llvm.loop.vectorize.enable`; every tensor access carries alias-scope metadata saying
/// distinct tensors never overlap, so the caller must bind distinct, non-overlapping buffers.
/// Float arithmetic may be contracted to FMA; Max/Min use llvm.maxnum/llvm.minnum.
///
/// Throws nasc::Error if the AST names a statement the kernel lacks, passes the wrong number
/// of iterator values, or uses an isl AST construct other than for/if/block/mark/user nodes
/// and integer arithmetic, min/max, divisions, select and comparisons.
llvm::Function *emitKernel(llvm::Module &module, const ir::Kernel &kernel, const isl::ast_node &ast,
                           const std::string &functionName);

} // namespace nasc::codegen
