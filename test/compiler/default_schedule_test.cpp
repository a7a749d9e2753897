// Correctness of the default schedule end to end: a small CNN (padded, strided and grouped
// convolutions, residual add, max pool, global average pool, Gemm) JIT-compiled through
// lowerToPolyhedral, whose reduction loops defaultSchedule reorders, equals the Eigen
// reference executor.
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace nasc;

namespace {

const char *kConvNet = R"({
  "name": "schednet",
  "inputs": [{"name": "x", "shape": [2, 4, 9, 8]}],
  "outputs": ["y"],
  "nodes": [
    {"name": "conv1", "op_type": "Conv", "inputs": ["x", "w1", "b1"], "outputs": ["c1"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "relu1", "op_type": "Relu", "inputs": ["c1"], "outputs": ["r1"]},
    {"name": "conv2", "op_type": "Conv", "inputs": ["r1", "w2"], "outputs": ["c2"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "group": 2}},
    {"name": "add", "op_type": "Add", "inputs": ["c2", "r1"], "outputs": ["a"]},
    {"name": "relu2", "op_type": "Relu", "inputs": ["a"], "outputs": ["r2"]},
    {"name": "pool", "op_type": "MaxPool", "inputs": ["r2"], "outputs": ["p"],
     "attributes": {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}},
    {"name": "conv3", "op_type": "Conv", "inputs": ["p", "w3", "b3"], "outputs": ["c3"],
     "attributes": {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [0, 1, 1, 0]}},
    {"name": "gap", "op_type": "GlobalAveragePool", "inputs": ["c3"], "outputs": ["g"]},
    {"name": "flat", "op_type": "Flatten", "inputs": ["g"], "outputs": ["f"]},
    {"name": "fc", "op_type": "Gemm", "inputs": ["f", "wf", "bf"], "outputs": ["y"],
     "attributes": {"transB": 1}}
  ],
  "initializers": [
    {"name": "w1", "shape": [6, 4, 3, 3], "init": "he_normal", "seed": 1},
    {"name": "b1", "shape": [6], "init": "he_normal", "seed": 2},
    {"name": "w2", "shape": [6, 3, 3, 3], "init": "he_normal", "seed": 3},
    {"name": "w3", "shape": [5, 6, 3, 2], "init": "he_normal", "seed": 4},
    {"name": "b3", "shape": [5], "init": "he_normal", "seed": 5},
    {"name": "wf", "shape": [3, 5], "init": "he_normal", "seed": 6},
    {"name": "bf", "shape": [3], "init": "he_normal", "seed": 7}
  ]
})";

/// The schedule time of the single instance `point` (e.g. "{ S1[0, 0, 1, 1, 0, 1, 1] }").
isl::set timeOf(const isl::union_map &schedule, const std::string &point) {
  isl::union_set time = isl::union_set(schedule.ctx(), point).apply(schedule);
  return isl::manage(isl_set_from_union_set(time.release()));
}

bool before(const isl::set &a, const isl::set &b) {
  return !isl::manage(isl_set_lex_lt_set(a.copy(), b.copy())).is_empty();
}

} // namespace

TEST_CASE("lowerToPolyhedral runs a conv's channel loop c outside its output column loop ow",
          "[default-schedule]") {
  compiler::PolyhedralModel model =
      compiler::lowerToPolyhedral(ir::loadModel(test::writeModel("schednet", kConvNet).string()));
  const auto &calls = model.program.calls;
  auto conv1 = std::find_if(calls.begin(), calls.end(), [](const ir::KernelCall &call) {
    return std::find(call.nodes.begin(), call.nodes.end(), "conv1") != call.nodes.end();
  });
  REQUIRE(conv1 != calls.end());
  const std::vector<ir::Statement> &statements = conv1->kernel.statements;
  auto s1 = std::find_if(statements.begin(), statements.end(),
                         [](const ir::Statement &st) { return st.name == "S1"; });
  REQUIRE(s1 != statements.end());
  REQUIRE(s1->iterators == std::vector<std::string>{"n", "k", "oh", "ow", "c", "r", "s"});
  isl::union_map schedule =
      model.scops.at(static_cast<size_t>(conv1 - calls.begin())).schedule.get_map();
  isl::set columnOneChannelZero = timeOf(schedule, "{ S1[0, 0, 1, 1, 0, 1, 1] }");
  isl::set columnZeroChannelOne = timeOf(schedule, "{ S1[0, 0, 1, 0, 1, 1, 1] }");
  CHECK(before(columnOneChannelZero, columnZeroChannelOne));
}

TEST_CASE("a conv net JIT-compiled with the default schedule equals the reference executor",
          "[default-schedule][jit]") {
  std::string path = test::writeModel("schednet", kConvNet).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path));
  CHECK(test::referenceError(std::move(model), path, 1, 7) <= 1e-4);
}

TEST_CASE("the default schedule starts no thread team inside a reduction loop",
          "[default-schedule]") {
  // Batch 1: a Gemm's output loop k runs inside its reduction loop c (the vector loop is k), and
  // a global average pool's channel loop inside its h and w loops. Parallelizing them would
  // fork once per c (512 times for ResNet-18's fc); no parallel loop is under a reduction loop.
  const std::string json = R"({"name": "gemmgap", "inputs": [{"name": "x", "shape": [1, 4, 3, 3]}],
    "outputs": ["y"], "nodes": [
      {"name": "gap", "op_type": "GlobalAveragePool", "inputs": ["x"], "outputs": ["g"]},
      {"name": "flat", "op_type": "Flatten", "inputs": ["g"], "outputs": ["f"]},
      {"name": "fc", "op_type": "Gemm", "inputs": ["f", "w", "b"], "outputs": ["y"],
       "attributes": {"transB": 1}}],
    "initializers": [{"name": "w", "shape": [6, 4], "init": "he_normal", "seed": 1},
                     {"name": "b", "shape": [6], "init": "he_normal", "seed": 2}]})";
  std::string path = test::writeModel("gemmgap", json).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path));
  int marks = 0;
  for (size_t c = 0; c < model.asts.size(); ++c) {
    std::string ast = poly::astToString(model.asts[c]);
    INFO(model.program.calls[c].kernel.name << ":\n" << ast);
    for (size_t at = ast.find("// parallel"); at != std::string::npos;
         at = ast.find("// parallel", at + 1), ++marks)
      CHECK((at == 0 || ast.compare(at - 3, 3, "\n  ") == 0));
  }
  CHECK(marks >= 2); // the Gemm's bias init and the pool's scaling loop
  CHECK(test::referenceError(std::move(model), path, 2, 7) <= 1e-5);
}
