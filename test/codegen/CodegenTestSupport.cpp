#include "CodegenTestSupport.h"

#include "codegen/GeneratedCode.h"
#include "codegen/Target.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/ParallelLoops.h"
#include "polyhedral/Scop.h"

#include <catch2/catch.hpp>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>

namespace nasc::test {

CompiledProgram compileProgram(const ir::Program &program, const std::string &prefix) {
  poly::IslContext isl;
  std::vector<isl::ast_node> asts;
  for (const ir::KernelCall &call : program.calls)
    asts.push_back(poly::generateAst(poly::buildScop(isl.get(), call.kernel)));
  return compileProgramWithAsts(program, asts, prefix);
}

CompiledProgram compileParallelProgram(const ir::Program &program, const std::string &prefix) {
  poly::IslContext isl;
  std::vector<isl::ast_node> asts;
  for (const ir::KernelCall &call : program.calls) {
    poly::Scop scop = poly::buildScop(isl.get(), call.kernel);
    scop.schedule = poly::markParallelLoops(scop, poly::computeDependences(scop, call.kernel));
    asts.push_back(poly::generateAst(scop));
  }
  return compileProgramWithAsts(program, asts, prefix);
}

CompiledProgram compileProgramWithAsts(const ir::Program &program,
                                       const std::vector<isl::ast_node> &asts,
                                       const std::string &prefix) {
  codegen::Target target = codegen::resolveTarget();
  codegen::GeneratedCode code(program, asts, prefix, target);
  CompiledProgram compiled;
  compiled.optimizedIr = code.llvmIr();
  compiled.jit = runtime::JitModule::create(code.takeObjects(), target);
  compiled.run = reinterpret_cast<RunFunction>(compiled.jit->lookup(prefix + "run"));
  compiled.workspaceBytes =
      *static_cast<const int64_t *>(compiled.jit->lookup(prefix + "workspace_bytes"));
  return compiled;
}

void runProgram(const CompiledProgram &compiled, const std::vector<std::vector<float>> &inputs,
                std::vector<std::vector<float>> &outputs, int threads) {
  size_t bytes = static_cast<size_t>(std::max<int64_t>(compiled.workspaceBytes, 64));
  std::unique_ptr<float, decltype(&std::free)> workspace(
      static_cast<float *>(std::aligned_alloc(64, (bytes + 63) / 64 * 64)), &std::free);
  std::fill_n(workspace.get(), bytes / sizeof(float), std::numeric_limits<float>::quiet_NaN());
  std::vector<const float *> in;
  for (const auto &v : inputs)
    in.push_back(v.data());
  std::vector<float *> out;
  for (auto &v : outputs)
    out.push_back(v.data());
  compiled.run(in.data(), out.data(), workspace.get(), threads);
}

ir::Program singleKernelProgram(const ir::Kernel &kernel, const std::vector<ir::BufferKind> &kinds,
                                const std::vector<std::vector<float>> &constants) {
  ir::Program program;
  program.name = kernel.name + "_program";
  size_t nextConstant = 0;
  for (size_t i = 0; i < kernel.tensors.size(); ++i) {
    ir::Buffer buffer;
    buffer.name = kernel.tensors[i].name;
    buffer.shape = kernel.tensors[i].shape;
    buffer.kind = kinds[i];
    if (buffer.kind == ir::BufferKind::Constant) {
      buffer.data = ir::Tensor::zeros(buffer.shape);
      buffer.data.f = constants.at(nextConstant++);
    }
    if (buffer.kind == ir::BufferKind::Input)
      program.inputs.push_back(static_cast<int>(i));
    if (buffer.kind == ir::BufferKind::Output)
      program.outputs.push_back(static_cast<int>(i));
    program.buffers.push_back(buffer);
  }
  ir::KernelCall call;
  call.kernel = kernel;
  for (size_t i = 0; i < kernel.tensors.size(); ++i)
    call.args.push_back(static_cast<int>(i));
  program.calls.push_back(call);
  return program;
}

std::vector<float> randomValues(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float &v : values)
    v = uniform(rng);
  return values;
}

void requireClose(const std::vector<float> &actual, const std::vector<float> &expected) {
  REQUIRE(actual.size() == expected.size());
  float scale = 0.0f;
  for (float e : expected)
    scale = std::max(scale, std::fabs(e));
  size_t mismatches = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (!(std::fabs(actual[i] - expected[i]) <= 1e-5f * scale)) {
      if (mismatches++ < 5)
        UNSCOPED_INFO("element " << i << ": got " << actual[i] << ", expected " << expected[i]);
    }
  }
  REQUIRE(mismatches == 0);
}

ir::AffineExpr it(size_t depth, size_t i, int64_t coeff) {
  return ir::AffineExpr::iter(depth, i, coeff);
}

ir::AffineExpr cst(size_t depth, int64_t value) { return ir::AffineExpr::constant_(depth, value); }

ir::Statement statement(const std::string &name, const std::vector<std::string> &iterators,
                        const std::vector<int64_t> &extents, ir::Access write, ir::Update update,
                        ir::Expr value) {
  ir::Statement st;
  st.name = name;
  st.iterators = iterators;
  st.extents = extents;
  st.reduction.assign(iterators.size(), false);
  st.write = std::move(write);
  st.update = update;
  st.value = std::move(value);
  return st;
}

} // namespace nasc::test
