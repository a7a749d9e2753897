// Golden tests of the vectorize primitive: isl schedule trees and ASTs of a small matmul before
// and after, its typed refusals (a reduction loop, a loop that is not innermost, bad widths,
// members, bands and statements), the LLVM loop metadata its mark becomes, and a conv net
// JIT-compiled with a vectorized output-column loop that equals the Eigen reference executor.
#include "compiler/transforms/Vectorize.h"
#include "codegen/KernelEmitter.h"
#include "compiler/transforms/Interchange.h"
#include "compiler/transforms/Parallelize.h"
#include "compiler/transforms/Tile.h"
#include "polyhedral/ParallelLoops.h"
#include "test/support/Kernels.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <regex>

using namespace nasc;
using test::astText;
using test::stencil2d;
using test::withSchedule;

namespace {

const char *kMatmulDomain =
    R"({ domain: "{ S0[i, j] : 0 <= i <= 4 and 0 <= j <= 5; S1[i, j, k] : 0 <= i <= 4 and )"
    R"(0 <= j <= 5 and 0 <= k <= 2 }", child: { sequence: [ { filter: "{ S0[i, j] }", )"
    R"(child: { schedule: )";

const char *kVectorized =
    R"("[{ S0[i, j] -> [(i)] }]", child: { mark: "vector", child: { schedule: )"
    R"("[{ S0[i, j] -> [(j)] }]" } } } }, { filter: "{ S1[i, j, k] }", child: { schedule: )"
    R"("[{ S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(k)] }]", child: { mark: "vector:8", )"
    R"(child: { schedule: "[{ S1[i, j, k] -> [(j)] }]" } } } } ] } })";

const char *kVectorizedAst = R"({
  for (int c0 = 0; c0 <= 4; c0 += 1) {
    // vector
    for (int c1 = 0; c1 <= 5; c1 += 1)
      S0(c0, c1);
  }
  for (int c0 = 0; c0 <= 4; c0 += 1)
    for (int c1 = 0; c1 <= 2; c1 += 1) {
      // vector:8
      for (int c2 = 0; c2 <= 5; c2 += 1)
        S1(c0, c2, c1);
    }
}
)";

const char *kEnable = R"(!"llvm.loop.vectorize.enable", i1 true)";
/// Innermost loops are not unrolled before the loop vectorizer sees them.
const char *kNoUnroll = R"(!"llvm.loop.unroll.disable")";

/// The matmul with S1 interchanged to (i, k, j), S0's j vectorized with LLVM's width and S1's j
/// with width 8.
isl::schedule vectorizedMatmul(const poly::Scop &scop, const poly::Dependences &deps) {
  poly::Scop current = withSchedule(scop, compiler::interchange(scop, deps, "S1", {0, 2, 1}));
  current.schedule = compiler::vectorize(current, deps, "S0", 1, 0);
  return compiler::vectorize(current, deps, "S1", 2, 8);
}

/// The conv statement (n, k, oh, ow, c, r, s) interchanged to (n, k, oh, c, r, s, ow) and its
/// output-column loop ow vectorized by 4; other kernels kept.
std::optional<isl::schedule> vectorizeConvColumns(const poly::Scop &scop,
                                                  const poly::Dependences &deps,
                                                  const ir::Kernel &kernel) {
  std::string conv = test::statementOfDepth(kernel, 7);
  if (conv.empty())
    return std::nullopt;
  poly::Scop current =
      withSchedule(scop, compiler::interchange(scop, deps, conv, {0, 1, 2, 4, 5, 6, 3}));
  return compiler::vectorize(current, deps, conv, 6, 4);
}

/// The text between the braces of the metadata node `!id` in `ir`, e.g. "!7, !8" for
/// `!7 = distinct !{!7, !8}`.
std::string metadataText(const std::string &ir, const std::string &id) {
  std::smatch match;
  std::regex line("\\n" + id + " = (?:distinct )?!\\{([^\\n]*)\\}\\n");
  return std::regex_search(ir, match, line) ? match[1].str() : "?";
}

/// The properties of the llvm.loop id on the back edge to block `header` in `ir`, e.g.
/// {"!\"llvm.loop.vectorize.enable\", i1 true"}; empty if the loop has none.
std::vector<std::string> loopProperties(const std::string &ir, const std::string &header) {
  std::smatch match;
  std::regex backEdge("br label %" + header + ", !llvm\\.loop (![0-9]+)");
  if (!std::regex_search(ir, match, backEdge))
    return {"no back edge to " + header};
  std::string id = match[1];
  std::vector<std::string> properties;
  std::string operands = metadataText(ir, id);
  std::regex property(", (![0-9]+)");
  for (std::sregex_iterator p(operands.begin(), operands.end(), property), end; p != end; ++p)
    properties.push_back(metadataText(ir, (*p)[1]));
  return properties;
}

/// The LLVM IR (before optimization) that codegen::emitKernel emits for `kernel` under
/// `schedule`.
std::string kernelIr(const ir::Kernel &kernel, const poly::Scop &scop,
                     const isl::schedule &schedule) {
  llvm::LLVMContext context;
  llvm::Module module("vectorize_test", context);
  codegen::emitKernel(module, kernel, poly::generateAst(withSchedule(scop, schedule)), "kernel");
  std::string text;
  llvm::raw_string_ostream out(text);
  module.print(out, nullptr);
  return out.str();
}

} // namespace

TEST_CASE("vectorize marks a matmul's innermost j loops \"vector\" and \"vector:8\": tree and AST",
          "[vectorize][golden]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  isl::schedule vectorized = vectorizedMatmul(scop, deps);
  CHECK(test::scheduleText(vectorized) == std::string(kMatmulDomain) + kVectorized);
  CHECK(astText(scop, vectorized) == kVectorizedAst);
}

TEST_CASE("a vector mark becomes llvm.loop.vectorize metadata with its width on its loop only",
          "[vectorize][codegen]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  std::string ir = kernelIr(kernel, scop, vectorizedMatmul(scop, deps));
  using Properties = std::vector<std::string>;
  CHECK(loopProperties(ir, "c0.header") == Properties{});
  CHECK(loopProperties(ir, "c1.header") == Properties{kEnable, kNoUnroll});
  CHECK(loopProperties(ir, "c0.header1") == Properties{});
  CHECK(loopProperties(ir, "c1.header5") == Properties{});
  CHECK(loopProperties(ir, "c2.header") ==
        Properties{kEnable, R"(!"llvm.loop.vectorize.width", i32 8)", kNoUnroll});
}

TEST_CASE("vector mark names carry the width: \"vector\" is LLVM's choice, \"vector:8\" is 8",
          "[vectorize]") {
  CHECK(poly::vectorMarkName(0) == "vector");
  CHECK(poly::vectorMarkName(16) == "vector:16");
  CHECK(poly::vectorMarkWidth("vector") == 0);
  CHECK(poly::vectorMarkWidth("vector:8") == 8);
  CHECK(poly::vectorMarkWidth("vector:64") == 64);
  for (const char *name : {"parallel", "vector:", "vector:0", "vector:x8", "vector8", "vectors",
                           "vector:99999999999"}) {
    CAPTURE(name);
    CHECK_FALSE(poly::vectorMarkWidth(name).has_value());
  }
}

TEST_CASE("a loop both parallel and vectorized is outlined and keeps its vector width",
          "[vectorize][parallelize][codegen]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, stencil2d());
  poly::Scop parallel = withSchedule(scop, compiler::parallelize(scop, deps, "S", 1));
  isl::schedule both = compiler::vectorize(parallel, deps, "S", 0, 4, 1);
  CHECK(astText(scop, both) == R"(for (int c0 = 1; c0 <= 3; c0 += 1) {
  // parallel
  // vector:4
  for (int c1 = 0; c1 <= 2; c1 += 1)
    S(c0, c1);
}
)");
  std::string ir = kernelIr(kernel, scop, both);
  CHECK(ir.find("call void @nasc_parallel_for(ptr @kernel.parallel") != std::string::npos);
  CHECK(loopProperties(ir, "c1.header") ==
        std::vector<std::string>{kEnable, R"(!"llvm.loop.vectorize.width", i32 4)", kNoUnroll});
}

TEST_CASE("vectorizing a matmul's reduction loop k is refused naming the reduction dependence",
          "[vectorize][error]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  CHECK_THROWS_AS(compiler::vectorize(scop, deps, "S1", 2, 8), compiler::CarriedDependence);
  CHECK_THROWS_WITH(compiler::vectorize(scop, deps, "S1", 2, 8),
                    "vectorize of statement 'S1' member 2 with width 8: the loop carries the "
                    "dependence { S1[i, j, k] -> S1[i' = i, j' = j, k' = 1 + k] : 0 <= i <= 4 "
                    "and 0 <= j <= 5 and 0 <= k <= 1 }, a reduction (it would need a private "
                    "accumulator)");
}

TEST_CASE("vectorize refuses loops that are not innermost, bad widths, members, bands and "
          "statements",
          "[vectorize][error]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  CHECK_THROWS_AS(compiler::vectorize(scop, deps, "S1", 1, 8), compiler::NotInnermost);
  CHECK_THROWS_WITH(compiler::vectorize(scop, deps, "S1", 1, 8),
                    "vectorize of statement 'S1' member 1 with width 8: only the statement's "
                    "innermost loop can be vectorized");
  poly::Scop tiled = withSchedule(scop, compiler::tile(scop, deps, "S1", {2, 2}));
  CHECK_THROWS_AS(compiler::vectorize(tiled, deps, "S1", 1, 8), compiler::NotInnermost);
  for (int width : {-4, 1, 3, 12, 128}) {
    CAPTURE(width);
    CHECK_THROWS_AS(compiler::vectorize(scop, deps, "S0", 1, width), compiler::InvalidFactor);
  }
  CHECK_THROWS_WITH(compiler::vectorize(scop, deps, "S0", 1, 3),
                    "vectorize of statement 'S0' member 1 with width 3: the width must be 0 "
                    "(LLVM's choice) or a power of two in 2 .. 64");
  CHECK_NOTHROW(compiler::vectorize(scop, deps, "S0", 1, 64));
  CHECK_THROWS_AS(compiler::vectorize(scop, deps, "S1", 3, 8), compiler::MemberOutOfRange);
  CHECK_THROWS_AS(compiler::vectorize(scop, deps, "S1", 2, 8, 1), compiler::NoSuchBand);
  CHECK_THROWS_AS(compiler::vectorize(scop, deps, "S7", 0, 8), compiler::UnknownStatement);
  auto [stencilKernel, stencil, stencilDeps] = test::Scheduled(ctx, stencil2d());
  CHECK_NOTHROW(compiler::vectorize(stencil, stencilDeps, "S", 1, 4));
}

TEST_CASE("a conv net with its output-column loop moved inside and vectorized by 4 equals the "
          "reference executor",
          "[vectorize][jit]") {
  std::string path = test::writeModel("vectorize_conv", test::kSmallConvNet).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path));
  REQUIRE(test::applyToKernels(model, vectorizeConvColumns) == 1);
  CHECK(test::referenceError(std::move(model), path) <= 1e-4);
}
