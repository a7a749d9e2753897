// One statement instance `write (update)= value` of a Kernel -> LLVM loads, float ops, a store.
#pragma once

#include "ir/Kernel.h"

#include <cstdint>
#include <vector>

namespace llvm {
class IRBuilderBase;
class MDNode;
class Value;
} // namespace llvm

namespace nasc::codegen {

/// A kernel's tensors inside an emitted function.
struct KernelTensors {
  std::vector<llvm::Value *> base;     ///< float* of tensor i.
  std::vector<ir::Shape> shape;        ///< Shape of tensor i (row-major, dense).
  std::vector<llvm::MDNode *> scope;   ///< !alias.scope of accesses to tensor i.
  std::vector<llvm::MDNode *> noalias; ///< !noalias: the scopes of all other tensors.
};

/// Loads `tensors[i]` for every kernel tensor at the builder's insertion point and creates one
/// alias scope per tensor (in one anonymous domain), asserting distinct tensors are disjoint.
KernelTensors loadKernelTensors(llvm::IRBuilderBase &builder, const ir::Kernel &kernel,
                                llvm::Value *tensorArray);

/// Emits `statement` at the point whose iterator values (i64, one per statement iterator,
/// in order) are `iterators`: an element of a tensor (D0, D1, ..., Dn-1) is one multi-index
/// inbounds GEP (index_0, ..., index_n-1) of [D1 x [... x [Dn-1 x float]]], not a flat offset
/// Σ_d index_d · stride_d (LLVM 19's Reassociate drops the disjoint flag of the `or`s that
/// InstCombine makes of such sums, and alias analysis then cannot separate the accesses;
/// docs/performance.md), the value tree (Add/Sub/Mul/Div as fadd/fsub/fmul/fdiv allowing FMA
/// contraction, Max/Min as llvm.maxnum/llvm.minnum) and the update (Assign: store; Add: W + v; Max:
/// maxnum(W, v)).
void emitStatement(llvm::IRBuilderBase &builder, const ir::Statement &statement,
                   const KernelTensors &tensors, const std::vector<llvm::Value *> &iterators);

} // namespace nasc::codegen
