// The call of a parallel loop from generated code: the runtime entry nasc_parallel_for and the
// context record that carries a kernel's tensors and outer loop values into the outlined body.
#pragma once

#include <string>
#include <vector>

namespace llvm {
class Function;
class FunctionCallee;
class IRBuilderBase;
class LLVMContext;
class Module;
class StructType;
class Value;
} // namespace llvm

namespace nasc::codegen {

/// Name of the runtime entry that runs a parallel loop:
///   void nasc_parallel_for(void (*body)(void *ctx, int64_t begin, int64_t end), void *ctx,
///                          int64_t lb, int64_t ub, int32_t threads);
/// It calls body(ctx, b, e) on disjoint ranges [b, e) covering [lb, ub), at most `threads` at
/// once; with threads <= 1 it calls body(ctx, lb, ub) on the calling thread. Defined by the
/// JIT runtime (runtime/jit/ParallelFor) and by the C ABI source of shared libraries.
inline constexpr const char *kParallelForSymbol = "nasc_parallel_for";

/// The declaration of nasc_parallel_for in `module` (added on first use).
llvm::FunctionCallee parallelForFunction(llvm::Module &module);

/// A new internal function `void name(ptr ctx, i64 begin, i64 end)` for a loop body.
llvm::Function *createOutlinedBody(llvm::Module &module, const std::string &name);

/// The context record { ptr tensors, i64 values[values.size()] }.
llvm::StructType *contextType(llvm::LLVMContext &context, size_t values);

/// Allocates the context record in the entry block of the builder's function and stores
/// `tensors` (the kernel's tensor array) and the i64 `values` into it at the insertion point.
llvm::Value *packContext(llvm::IRBuilderBase &builder, llvm::Value *tensors,
                         const std::vector<llvm::Value *> &values);

/// Loads the tensor array (first) and the `count` i64 values (then) from a context record.
std::vector<llvm::Value *> unpackContext(llvm::IRBuilderBase &builder, llvm::Value *context,
                                         size_t count);

} // namespace nasc::codegen
