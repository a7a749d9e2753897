// forwardPaddedInputs (compiler/transforms/ForwardPadded.h), pass "forward-padded" of
// lowerToPolyhedral: a kernel writes its output straight into the padded tensor that the next
// conv's pad_input copied it into, the copy is dropped and the halo fills stay; other readers
// read the padded tensor at the shifted index; a graph input keeps its copy. Kernel text is
// hand-written; the compiled models equal the reference executor.
#include "compiler/transforms/ScheduleTrace.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace nasc;

namespace {

const ir::KernelCall &callOf(const ir::Program &program, const std::string &node) {
  return *std::find_if(program.calls.begin(), program.calls.end(), [&](const ir::KernelCall &c) {
    return std::find(c.nodes.begin(), c.nodes.end(), node) != c.nodes.end();
  });
}

bool bindsTensorNamed(const ir::KernelCall &call, const std::string &name) {
  return std::any_of(call.kernel.tensors.begin(), call.kernel.tensors.end(),
                     [&](const ir::TensorDecl &t) { return t.name == name; });
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// x [1, 8, 6, 5] -> conv a (`channels`, 1x1) -> relu r1 -> conv b (`channels`, 3x3 pad 1) ->
/// Add(b, r1) -> y; when `second` is set, Add(b, r1) -> s and r1 -> conv c (`channels`, 5x5
/// pad 2) -> Add(s, c) -> y.
std::string chain(const std::string &name, int channels, bool second) {
  const std::string k = std::to_string(channels);
  std::string nodes = R"(
    {"name": "a", "op_type": "Conv", "inputs": ["x", "wa", "ba"], "outputs": ["ca"],
     "attributes": {"kernel_shape": [1, 1]}},
    {"name": "relu1", "op_type": "Relu", "inputs": ["ca"], "outputs": ["r1"]},
    {"name": "b", "op_type": "Conv", "inputs": ["r1", "wb", "bb"], "outputs": ["cb"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "add", "op_type": "Add", "inputs": ["cb", "r1"], "outputs": [")" +
                      std::string(second ? "s" : "y") + R"("]})";
  if (second)
    nodes += R"(,
    {"name": "c", "op_type": "Conv", "inputs": ["r1", "wc"], "outputs": ["cc"],
     "attributes": {"kernel_shape": [5, 5], "pads": [2, 2, 2, 2]}},
    {"name": "add2", "op_type": "Add", "inputs": ["s", "cc"], "outputs": ["y"]})";
  return R"({"name": ")" + name + R"(", "inputs": [{"name": "x", "shape": [1, 8, 6, 5]}],
  "outputs": ["y"],
  "nodes": [)" +
         nodes + R"(],
  "initializers": [
    {"name": "wa", "shape": [)" +
         k + R"(, 8, 1, 1], "init": "he_normal", "seed": 1},
    {"name": "ba", "shape": [)" +
         k + R"(], "init": "he_normal", "seed": 2},
    {"name": "wb", "shape": [)" +
         k + ", " + k + R"(, 3, 3], "init": "he_normal", "seed": 3},
    {"name": "bb", "shape": [)" +
         k + R"(], "init": "he_normal", "seed": 4},
    {"name": "wc", "shape": [)" +
         k + ", " + k + R"(, 5, 5], "init": "he_normal", "seed": 5}]})";
}

compiler::PolyhedralModel lowered(const std::string &path, const codegen::VectorUnit &unit) {
  return compiler::lowerToPolyhedral(ir::loadModel(path), {}, unit, "forward-padded");
}

double compiledError(const std::string &path, const codegen::VectorUnit &unit) {
  return test::referenceError(compiler::lowerToPolyhedral(ir::loadModel(path), {}, unit), path, 2);
}

} // namespace

TEST_CASE("a blocked conv writes its output into the next conv's padded tensor, whose copy is "
          "dropped; the residual reads it shifted",
          "[forward-padded]") {
  const std::string path = test::writeModel("fwdpad", chain("fwdpad", 16, false)).string();
  const compiler::PolyhedralModel model = lowered(path, codegen::VectorUnit{8, 16});
  const ir::KernelCall &a = callOf(model.program, "a");
  const ir::KernelCall &b = callOf(model.program, "b");
  CHECK_FALSE(bindsTensorNamed(a, "r1_nChw8c"));
  CHECK_FALSE(bindsTensorNamed(b, "r1_nChw8c"));
  CHECK(contains(a.kernel.toString(), "r1_padded_nChw8c[n, k0, oh + 1, ow + 1, k1] = max("));
  const std::string text = b.kernel.toString();
  // The halo of the 8 x 7 padded rows: row 0 and row 7 whole, columns 0 and 6 of rows 1-6.
  CHECK(contains(text, "r1_padded_nChw8c[d0, d1_0, d2, d3, d1_1] = 0"));
  CHECK(contains(text, "r1_padded_nChw8c[d0, d1_0, d2 + 7, d3, d1_1] = 0"));
  CHECK(contains(text, "r1_padded_nChw8c[d0, d1_0, d2 + 1, d3, d1_1] = 0"));
  CHECK(contains(text, "r1_padded_nChw8c[d0, d1_0, d2 + 1, d3 + 6, d1_1] = 0"));
  CHECK_FALSE(contains(text, "r1_padded_nChw8c[d0, d1_0, d2 + 1, d3 + 1, d1_1] ="));
  CHECK(contains(text, "(r1_padded_nChw8c[n, c0, oh + r, ow + s, c1] * "));
  CHECK(contains(text, "+ r1_padded_nChw8c[n, k0, oh + 1, ow + 1, k1])"));
  CHECK(compiledError(path, codegen::VectorUnit{8, 16}) <= 1e-5);
  CHECK(compiledError(path, codegen::VectorUnit{16, 32}) <= 1e-5);
}

TEST_CASE("an NCHW conv writes into its reader's padded tensor too", "[forward-padded]") {
  // 3 channels: no kernel is blocked.
  const std::string path = test::writeModel("fwdpadnchw", chain("fwdpadnchw", 3, false)).string();
  const compiler::PolyhedralModel model = lowered(path, codegen::VectorUnit{8, 16});
  CHECK(contains(callOf(model.program, "a").kernel.toString(),
                 "r1_padded[n, k, oh + 1, ow + 1] = max("));
  CHECK_FALSE(bindsTensorNamed(callOf(model.program, "b"), "r1"));
  CHECK(compiledError(path, codegen::VectorUnit{8, 16}) <= 1e-5);
}

TEST_CASE("of two padded readers the first takes the activation, the second copies it from "
          "there",
          "[forward-padded]") {
  const std::string path = test::writeModel("fwdpad2", chain("fwdpad2", 16, true)).string();
  const compiler::PolyhedralModel model = lowered(path, codegen::VectorUnit{8, 16});
  const std::string c = callOf(model.program, "c").kernel.toString();
  CHECK(contains(c, "r1_padded_nChw8c_1[d0, d1_0, d2 + 2, d3 + 2, d1_1] = "
                    "r1_padded_nChw8c[d0, d1_0, d2 + 1, d3 + 1, d1_1]"));
  CHECK(compiledError(path, codegen::VectorUnit{8, 16}) <= 1e-5);
}

TEST_CASE("a conv of a graph input keeps its pad copy", "[forward-padded]") {
  const std::string path = test::writeModel("fwdpadin", R"({"name": "fwdpadin",
  "inputs": [{"name": "x", "shape": [1, 8, 6, 5]}], "outputs": ["y"],
  "nodes": [{"name": "b", "op_type": "Conv", "inputs": ["x", "wb"], "outputs": ["y"],
             "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}}],
  "initializers": [{"name": "wb", "shape": [16, 8, 3, 3], "init": "he_normal", "seed": 3}]})")
                               .string();
  const compiler::PolyhedralModel model = lowered(path, codegen::VectorUnit{8, 16});
  CHECK(contains(callOf(model.program, "b").kernel.toString(),
                 "x_padded_nChw8c[d0, d1_0, d2 + 1, d3 + 1, d1_1] = x[d0, 8*d1_0 + d1_1, d2, d3]"));
}

TEST_CASE("a conv writing into its reader's padded tensor fuses its bias and ReLU into its "
          "output rows",
          "[forward-padded]") {
  // 32 output channels in 4 blocks of 8: conv a's tile holds 2 blocks by the 5 columns, loops
  // (n, k0 outer, oh, ...). Its bias S0, conv S1 and ReLU S2 all write r1_padded at oh + 1 and
  // ow + 1, so the same constant on both sides aligns their rows: fused at depth 3.
  const std::string path = test::writeModel("fwdpadfuse", chain("fwdpadfuse", 32, false)).string();
  const compiler::PolyhedralModel model =
      compiler::lowerToPolyhedral(ir::loadModel(path), {}, codegen::VectorUnit{8, 16});
  const compiler::ModelSchedule schedule = model.schedule();
  auto a = std::find_if(schedule.kernels.begin(), schedule.kernels.end(),
                        [](const compiler::KernelSchedule &k) { return k.node == "a"; });
  REQUIRE(a != schedule.kernels.end());
  const std::string trace = compiler::scheduleToJson({schedule.source, {*a}});
  INFO(trace);
  CHECK(contains(trace, R"({"primitive":"interchange","statement":"S0","order":[0,1,3,2,4,5]})"));
  CHECK(contains(trace, R"({"primitive":"interchange","statement":"S2","order":[0,1,3,2,4,5]})"));
  CHECK(contains(trace, R"({"primitive":"fuse","statements":["S0","S1","S2"],"depth":3})"));
  CHECK(compiledError(path, codegen::VectorUnit{8, 16}) <= 1e-5);
}
