// Helpers for codegen tests: building kernels by hand, compiling programs through isl + LLVM +
// the JIT, running them, and comparing with independently computed values.
#pragma once

#include "ir/Program.h"
#include "runtime/jit/JitModule.h"

#include <isl/cpp.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nasc::test {

/// Signature of the generated `<prefix>run`.
using RunFunction = void (*)(const float *const *inputs, float *const *outputs, float *workspace,
                             int32_t threads);

/// A program compiled in process: ast -> LLVM -> O3 -> object files -> JIT.
struct CompiledProgram {
  std::unique_ptr<runtime::JitModule> jit;
  RunFunction run = nullptr;
  int64_t workspaceBytes = 0;
  std::string optimizedIr; ///< Textual LLVM IR after the O3 pipeline.
};

/// Compiles `program` with the initial schedule of each kernel (buildScop -> generateAst ->
/// codegen::GeneratedCode for the host -> JitModule) and looks up its symbols.
CompiledProgram compileProgram(const ir::Program &program, const std::string &prefix);

/// Like compileProgram, but each kernel's schedule first gets its parallel loops marked
/// (computeDependences -> markParallelLoops), so the code calls nasc_parallel_for.
CompiledProgram compileParallelProgram(const ir::Program &program, const std::string &prefix);

/// Compiles `program` with the given isl ASTs (one per call) instead of the initial schedules.
CompiledProgram compileProgramWithAsts(const ir::Program &program,
                                       const std::vector<isl::ast_node> &asts,
                                       const std::string &prefix);

/// Runs a compiled program once: `outputs` hold the outputs' initial contents and receive
/// the results; a fresh 64-byte-aligned workspace is allocated and filled with NaN first.
/// Parallel loops use `threads` threads.
void runProgram(const CompiledProgram &compiled, const std::vector<std::vector<float>> &inputs,
                std::vector<std::vector<float>> &outputs, int threads = 1);

/// A one-call program around `kernel`: kernel tensor i becomes buffer i of kind `kinds[i]`;
/// Constant buffers take their data from `constants` in order; inputs and outputs are listed
/// in tensor order.
ir::Program singleKernelProgram(const ir::Kernel &kernel, const std::vector<ir::BufferKind> &kinds,
                                const std::vector<std::vector<float>> &constants = {});

/// `count` uniform values in [-1, 1) from a fixed-seed generator.
std::vector<float> randomValues(size_t count, unsigned seed);

/// Requires |actual_i - expected_i| <= 1e-5 · max_j |expected_j| for every i: a tolerance
/// relative to the result's magnitude, so near-zero sums of many terms are not over-constrained.
void requireClose(const std::vector<float> &actual, const std::vector<float> &expected);

/// Affine expression builders for a statement of `depth` iterators.
ir::AffineExpr it(size_t depth, size_t i, int64_t coeff = 1);
ir::AffineExpr cst(size_t depth, int64_t value);

/// A statement with box domain `extents` over `iterators`.
ir::Statement statement(const std::string &name, const std::vector<std::string> &iterators,
                        const std::vector<int64_t> &extents, ir::Access write, ir::Update update,
                        ir::Expr value);

} // namespace nasc::test
