// The pipeline as named passes (compiler/Pipeline.h): their order, stopping after any of them,
// what each leaves in the per-kernel record (isl values checked against hand-written isl text),
// and printAfterPass.
#include "compiler/Pipeline.h"
#include "ir/Error.h"
#include "ir/import/ModelLoader.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace nasc;

namespace {

/// y[1, 3] = x[1, 4] · wᵀ: one kernel, S0 y[i, j] = 0 and S1 y[i, j] += x[i, k] · w_T[k, j].
const char *kGemm = R"({"name": "fc", "inputs": [{"name": "x", "shape": [1, 4]}], "outputs": ["y"],
  "nodes": [{"name": "fc", "op_type": "Gemm", "inputs": ["x", "w"], "outputs": ["y"],
             "attributes": {"transB": 1}}],
  "initializers": [{"name": "w", "shape": [3, 4], "init": "he_normal", "seed": 1}]})";

compiler::PolyhedralModel lowerGemmUpTo(const std::string &pass) {
  return compiler::lowerToPolyhedral(ir::loadModel(test::writeModel("passes_fc", kGemm).string()),
                                     {}, {8, 16}, pass);
}

bool sameSet(const isl::union_set &a, const char *text) {
  return a.is_equal(isl::union_set(a.ctx(), text));
}

bool sameMap(const isl::union_map &a, const char *text) {
  return a.is_equal(isl::union_map(a.ctx(), text));
}

} // namespace

TEST_CASE("the pipeline's passes, in order", "[pipeline]") {
  std::vector<std::string> names;
  for (const compiler::PipelinePass &pass : compiler::pipelinePasses()) {
    names.push_back(pass.name);
    CHECK_FALSE(pass.summary.empty());
  }
  CHECK(names == std::vector<std::string>{"neural-steps", "lower", "layout", "forward-blocked",
                                          "forward-padded", "scop", "dependences", "schedule",
                                          "ast"});
}

TEST_CASE("lowering stops after the pass asked for, with each record filled up to it",
          "[pipeline]") {
  const compiler::PolyhedralModel neural = lowerGemmUpTo("neural-steps");
  CHECK(neural.kernels.empty());
  CHECK(neural.program.calls.empty());

  const compiler::PolyhedralModel lowered = lowerGemmUpTo("lower");
  REQUIRE(lowered.kernels.size() == 1);
  CHECK(lowered.kernels[0].trace.node == "fc");
  CHECK_FALSE(lowered.kernels[0].scop.has_value());

  const compiler::PolyhedralModel scops = lowerGemmUpTo("scop");
  REQUIRE(scops.kernels.at(0).scop.has_value());
  CHECK(sameSet(scops.kernels[0].scop->domain,
                "{ S0[0, j] : 0 <= j <= 2; S1[0, j, k] : 0 <= j <= 2 and 0 <= k <= 3 }"));
  CHECK(sameMap(scops.kernels[0].scop->writes,
                "{ S0[0, j] -> y[0, j] : 0 <= j <= 2; S1[0, j, k] -> y[0, j] : 0 <= j <= 2 and "
                "0 <= k <= 3 }"));
  CHECK_FALSE(scops.kernels[0].dependences.has_value());

  const compiler::PolyhedralModel deps = lowerGemmUpTo("dependences");
  REQUIRE(deps.kernels.at(0).dependences.has_value());
  CHECK(sameMap(deps.kernels[0].dependences->flow,
                "{ S0[0, j] -> S1[0, j, 0] : 0 <= j <= 2; "
                "S1[0, j, k] -> S1[0, j, k + 1] : 0 <= j <= 2 and 0 <= k <= 2 }"));
  CHECK(sameMap(deps.kernels[0].dependences->reductions,
                "{ S1[0, j, k] -> S1[0, j, k + 1] : 0 <= j <= 2 and 0 <= k <= 2 }"));
  CHECK(deps.kernels[0].trace.steps.empty());
  CHECK_FALSE(deps.kernels[0].ast.has_value());

  const compiler::PolyhedralModel all = lowerGemmUpTo("");
  const compiler::PolyhedralModel last = lowerGemmUpTo("ast");
  REQUIRE(all.kernels.at(0).ast.has_value());
  CHECK(compiler::scheduleToJson(all.schedule()) == compiler::scheduleToJson(last.schedule()));
  CHECK(poly::astToString(*all.kernels[0].ast) == poly::astToString(*last.kernels[0].ast));
}

TEST_CASE("an unknown pass is refused with the list of passes", "[pipeline][error]") {
  CHECK_THROWS_WITH(lowerGemmUpTo("isl-ast"),
                    "unknown pass 'isl-ast' (the passes, in order: neural-steps, lower, layout, "
                    "forward-blocked, forward-padded, scop, dependences, schedule, ast)");
  const compiler::PolyhedralModel model = lowerGemmUpTo("");
  std::ostringstream out;
  CHECK_THROWS_WITH(compiler::printAfterPass(out, model, "dependences", "conv7"),
                    "no kernel implements node 'conv7'");
}

TEST_CASE("printAfterPass prints what the pass made", "[pipeline]") {
  const compiler::PolyhedralModel model = lowerGemmUpTo("dependences");
  std::ostringstream kernels, deps;
  compiler::printAfterPass(kernels, model, "lower", "fc");
  CHECK(kernels.str() == R"(kernel fc
  tensor x : 1x4
  tensor w_T : 4x3
  tensor y : 1x3
  S0[i < 1, j < 3]
    y[i, j] = 0
  S1[i < 1, j < 3, k* < 4]
    y[i, j] += (x[i, k] * w_T[k, j])
)");
  compiler::printAfterPass(deps, model, "dependences");
  CHECK(deps.str().rfind("kernel fc\n  flow: { ", 0) == 0);
  CHECK(deps.str().find("\n  reductions: { S1[") != std::string::npos);
}

TEST_CASE("kernels lowered on several threads get the traces and ASTs of one thread",
          "[pipeline][parallel]") {
  const ir::Graph graph = ir::loadModel(NASC_SOURCE_DIR "/models/resnet18.json");
  const compiler::PolyhedralModel one = compiler::lowerToPolyhedral(graph, {}, {8, 16}, "", 1);
  const compiler::PolyhedralModel three = compiler::lowerToPolyhedral(graph, {}, {8, 16}, "", 3);
  REQUIRE(one.kernels.size() == three.kernels.size());
  CHECK(compiler::scheduleToJson(one.schedule()) == compiler::scheduleToJson(three.schedule()));
  size_t shared = 0;
  for (size_t c = 0; c < one.kernels.size(); ++c) {
    INFO("kernel " << one.program.calls[c].kernel.name);
    CHECK(poly::astToString(*one.kernels[c].ast) == poly::astToString(*three.kernels[c].ast));
    const compiler::KernelRecord &record = three.kernels[c];
    if (record.sameAs) {
      ++shared;
      CHECK(record.context == three.kernels[*record.sameAs].context);
      CHECK(record.ast->get() == three.kernels[*record.sameAs].ast->get());
    }
  }
  // ResNet-18 repeats convs of one shape within a stage: one isl context per structure.
  CHECK(shared > 0);
  CHECK(three.contexts.size() == three.kernels.size() - shared);
}

TEST_CASE("of two kernels whose traces fail on several threads, the first one's error is "
          "thrown",
          "[pipeline][parallel][error]") {
  const std::string path = test::writeModel("twoconvs", R"({"name": "twoconvs",
    "inputs": [{"name": "x", "shape": [1, 3, 6, 6]}], "outputs": ["z"],
    "nodes": [{"name": "conv1", "op_type": "Conv", "inputs": ["x", "w1"], "outputs": ["y"],
               "attributes": {"kernel_shape": [1, 1]}},
              {"name": "conv2", "op_type": "Conv", "inputs": ["y", "w2"], "outputs": ["z"],
               "attributes": {"kernel_shape": [3, 3]}}],
    "initializers": [{"name": "w1", "shape": [4, 3, 1, 1], "init": "he_normal", "seed": 1},
                     {"name": "w2", "shape": [2, 4, 3, 3], "init": "he_normal", "seed": 2}]})")
                               .string();
  const compiler::ModelSchedule schedule = compiler::scheduleFromJson(
      R"({"nasc_schedule": 1, "kernels": {
        "conv2": [{"primitive": "parallelize", "statement": "S8", "member": 0, "band": 0}],
        "conv1": [{"primitive": "parallelize", "statement": "S9", "member": 0, "band": 0}]}})",
      "two.json");
  for (int jobs : {1, 2, 4})
    CHECK_THROWS_WITH(
        compiler::lowerToPolyhedral(ir::loadModel(path), schedule, {8, 16}, "", jobs),
        Catch::StartsWith("two.json: node 'conv1' step 1 parallelize(S9, member=0, band=0) "
                          "does not apply: parallelize: no statement named 'S9'"));
}
