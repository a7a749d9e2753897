// Vectorization: the innermost loops of GEMM and convolution become vector code at O3.
#include "CodegenTestSupport.h"
#include "TestKernels.h"

#include <catch2/catch.hpp>

#include <regex>

using namespace nasc;
using namespace nasc::test;
using Kind = ir::BufferKind;

namespace {

/// Whether the optimized IR does float arithmetic on vectors of at least 8 lanes (AVX2 ymm or
/// AVX-512 zmm registers).
bool hasWideFloatArithmetic(const std::string &ir) {
  static const std::regex vectorOp(R"((fmul|fadd|call)[^\n]*<(8|16) x float>)");
  return std::regex_search(ir, vectorOp);
}

} // namespace

TEST_CASE("GEMM inner loops vectorize to 8- or 16-lane float vectors", "[codegen][vectorize]") {
  bool reductionOutside = GENERATE(false, true);
  CAPTURE(reductionOutside);
  ir::Program program = singleKernelProgram(gemmAccumulate(64, 64, 64, reductionOutside),
                                            {Kind::Input, Kind::Input, Kind::Output});
  CompiledProgram compiled = compileProgram(program, "vec_gemm_");
  CHECK(hasWideFloatArithmetic(compiled.optimizedIr));
}

TEST_CASE("Convolution inner loops along a row vectorize to 8- or 16-lane float vectors",
          "[codegen][vectorize]") {
  ConvShape shape;
  shape.c = 16;
  shape.k = 16;
  shape.h = 32;
  shape.w = 32;
  ir::Program program = singleKernelProgram(conv2dBias(shape, true),
                                            {Kind::Input, Kind::Input, Kind::Input, Kind::Output});
  CompiledProgram compiled = compileProgram(program, "vec_conv_");
  CHECK(hasWideFloatArithmetic(compiled.optimizedIr));
}
