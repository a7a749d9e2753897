// forwardBlockedLayouts (compiler/transforms/ForwardBlocked.h), pass "forward-blocked" of
// lowerToPolyhedral (the kernels are read as that pass left them, the compiled model after every
// pass): a
// blocked conv's copy back to NCHW is dropped when every later reader can read nChw[x]c (the
// next conv's pad copy, a residual Add, a max-pool the default layout blocks because its input
// is blocked), and kept for a graph output; a 1x1 reader reads the blocked tensor without a pack
// copy of its own; the compiled models equal the reference executor.
#include "compiler/transforms/ScheduleTrace.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace nasc;

namespace {

/// x [1, 8, 6, 5] -> conv a (16, 3x3 pad 1) -> relu r1 -> conv b (16, 3x3 pad 1) ->
/// Add(b, r1) -> relu -> `tail`.
std::string residualNet(const std::string &name, const std::string &tail) {
  return R"({"name": ")" + name + R"(", "inputs": [{"name": "x", "shape": [1, 8, 6, 5]}],
  "outputs": ["y"],
  "nodes": [
    {"name": "a", "op_type": "Conv", "inputs": ["x", "wa", "ba"], "outputs": ["ca"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "relu1", "op_type": "Relu", "inputs": ["ca"], "outputs": ["r1"]},
    {"name": "b", "op_type": "Conv", "inputs": ["r1", "wb", "bb"], "outputs": ["cb"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "add", "op_type": "Add", "inputs": ["cb", "r1"], "outputs": ["s"]},
    {"name": "relu2", "op_type": "Relu", "inputs": ["s"], "outputs": [")" +
         std::string(tail.empty() ? "y" : "r2") + R"("]})" + tail + R"(],
  "initializers": [
    {"name": "wa", "shape": [16, 8, 3, 3], "init": "he_normal", "seed": 1},
    {"name": "ba", "shape": [16], "init": "he_normal", "seed": 2},
    {"name": "wb", "shape": [16, 16, 3, 3], "init": "he_normal", "seed": 3},
    {"name": "bb", "shape": [16], "init": "he_normal", "seed": 4}]})";
}

const ir::KernelCall &callOf(const ir::Program &program, const std::string &node) {
  return *std::find_if(program.calls.begin(), program.calls.end(), [&](const ir::KernelCall &c) {
    return std::find(c.nodes.begin(), c.nodes.end(), node) != c.nodes.end();
  });
}

/// The model at `path` lowered up to pass "forward-blocked" for vector unit `unit`.
compiler::PolyhedralModel blockedModel(const std::string &path, const codegen::VectorUnit &unit) {
  return compiler::lowerToPolyhedral(ir::loadModel(path), {}, unit, "forward-blocked");
}

/// test::referenceError of the model at `path` lowered by every pass for `unit`, on 2 threads.
double compiledError(const std::string &path, const codegen::VectorUnit &unit) {
  return test::referenceError(compiler::lowerToPolyhedral(ir::loadModel(path), {}, unit), path, 2);
}

bool bindsTensorNamed(const ir::KernelCall &call, const std::string &name) {
  return std::any_of(call.kernel.tensors.begin(), call.kernel.tensors.end(),
                     [&](const ir::TensorDecl &t) { return t.name == name; });
}

} // namespace

TEST_CASE("a blocked conv's output stays blocked for a blocked reader, and is copied to NCHW "
          "for a graph output",
          "[block-channels][forward-blocked]") {
  const std::string path = test::writeModel("fwdres", residualNet("fwdres", "")).string();
  const compiler::PolyhedralModel model = blockedModel(path, codegen::VectorUnit{8, 16});
  const ir::KernelCall &a = callOf(model.program, "a");
  const ir::KernelCall &b = callOf(model.program, "b");
  // Kernel a no longer writes r1 in NCHW; kernel b reads r1_nChw8c in its pad copy and its Add.
  CHECK_FALSE(bindsTensorNamed(a, "r1"));
  CHECK_FALSE(bindsTensorNamed(b, "r1"));
  const std::string text = b.kernel.toString();
  CHECK(text.find("= r1_nChw8c[d0, d1_0, d2, d3, d1_1]") != std::string::npos);
  CHECK(text.find("+ r1_nChw8c[n, k0, oh, ow, k1])") != std::string::npos);
  // y is a graph output: kernel b copies its result out.
  CHECK(text.find("y[d0, 8*d1_0 + d1_1, d2, d3] = y_nChw8c[d0, d1_0, d2, d3, d1_1]") !=
        std::string::npos);
  CHECK(compiledError(path, codegen::VectorUnit{8, 16}) <= 1e-5);
}

TEST_CASE("a max-pool reading a blocked conv's output is blocked with its block and reads it "
          "directly",
          "[block-channels][forward-blocked]") {
  const std::string tail = R"(,
    {"name": "pool", "op_type": "MaxPool", "inputs": ["r2"], "outputs": ["y"],
     "attributes": {"kernel_shape": [2, 2], "strides": [2, 2]}})";
  const std::string path = test::writeModel("fwdpool", residualNet("fwdpool", tail)).string();
  const compiler::PolyhedralModel model = blockedModel(path, codegen::VectorUnit{16, 32});
  CHECK_FALSE(bindsTensorNamed(callOf(model.program, "b"), "r2"));
  const ir::KernelCall &pool = callOf(model.program, "pool");
  CHECK_FALSE(bindsTensorNamed(pool, "r2"));
  const std::string text = pool.kernel.toString();
  CHECK(text.find("y_nChw16c[n, c0, oh, ow, c1] max= r2_nChw16c[n, c0, 2*oh + r, 2*ow + s, c1]") !=
        std::string::npos);
  // y is a graph output: the pool copies its result out.
  CHECK(text.find("y[d0, 16*d1_0 + d1_1, d2, d3] = y_nChw16c[d0, d1_0, d2, d3, d1_1]") !=
        std::string::npos);
  CHECK(compiledError(path, codegen::VectorUnit{16, 32}) <= 1e-5);
}

TEST_CASE("a stem's conv, max-pool and next conv share one blocked activation each; a max-pool "
          "of an NCHW input stays NCHW",
          "[block-channels][forward-blocked]") {
  // x [1, 3, 9, 10] -> conv a (16, 3x3 pad 1) -> relu -> max-pool 3x3 stride 2 pad 1 -> conv b
  // (16, 3x3 pad 1) -> y, and the max-pool of the graph input x alone.
  const std::string path = test::writeModel("fwdstem", R"({"name": "fwdstem",
  "inputs": [{"name": "x", "shape": [1, 3, 9, 10]}], "outputs": ["y"],
  "nodes": [
    {"name": "a", "op_type": "Conv", "inputs": ["x", "wa", "ba"], "outputs": ["ca"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "relu1", "op_type": "Relu", "inputs": ["ca"], "outputs": ["r1"]},
    {"name": "pool", "op_type": "MaxPool", "inputs": ["r1"], "outputs": ["p"],
     "attributes": {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}},
    {"name": "b", "op_type": "Conv", "inputs": ["p", "wb", "bb"], "outputs": ["y"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}}],
  "initializers": [
    {"name": "wa", "shape": [16, 3, 3, 3], "init": "he_normal", "seed": 9},
    {"name": "ba", "shape": [16], "init": "he_normal", "seed": 10},
    {"name": "wb", "shape": [16, 16, 3, 3], "init": "he_normal", "seed": 11},
    {"name": "bb", "shape": [16], "init": "he_normal", "seed": 12}]})")
                               .string();
  for (codegen::VectorUnit unit : {codegen::VectorUnit{16, 32}, codegen::VectorUnit{8, 16}}) {
    INFO("lanes " << unit.lanes);
    const compiler::PolyhedralModel model = blockedModel(path, unit);
    const ir::KernelCall &pool = callOf(model.program, "pool");
    CHECK_FALSE(bindsTensorNamed(pool, "r1"));
    CHECK_FALSE(bindsTensorNamed(pool, "p"));
    CHECK_FALSE(bindsTensorNamed(callOf(model.program, "b"), "p"));
    const std::string x = std::to_string(unit.lanes);
    CHECK(pool.kernel.toString().find("p_nChw" + x + "c[n, c0, oh, ow, c1] max= r1_nChw" + x +
                                      "c[n, c0, 2*oh + r - 1, 2*ow + s - 1, c1]") !=
          std::string::npos);
    CHECK(compiledError(path, unit) <= 1e-5);
  }
  const std::string alone = test::writeModel("fwdpoolalone", R"({"name": "fwdpoolalone",
  "inputs": [{"name": "x", "shape": [1, 16, 9, 10]}], "outputs": ["y"],
  "nodes": [{"name": "pool", "op_type": "MaxPool", "inputs": ["x"], "outputs": ["y"],
     "attributes": {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}}]})")
                                .string();
  compiler::PolyhedralModel model =
      compiler::lowerToPolyhedral(ir::loadModel(alone), {}, codegen::VectorUnit{16, 32});
  CHECK(compiler::scheduleToJson(model.schedule()).find("block_channels") == std::string::npos);
}

TEST_CASE("a 1x1 conv reading a forwarded blocked activation reads it directly, without a pack "
          "copy",
          "[block-channels][forward-blocked]") {
  const std::string path = test::writeModel("fwd1x1", R"({"name": "fwd1x1",
  "inputs": [{"name": "x", "shape": [1, 8, 6, 5]}], "outputs": ["y"],
  "nodes": [
    {"name": "a", "op_type": "Conv", "inputs": ["x", "wa", "ba"], "outputs": ["ca"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "relu1", "op_type": "Relu", "inputs": ["ca"], "outputs": ["r1"]},
    {"name": "b", "op_type": "Conv", "inputs": ["r1", "wb", "bb"], "outputs": ["cb"],
     "attributes": {"kernel_shape": [1, 1]}},
    {"name": "relu2", "op_type": "Relu", "inputs": ["cb"], "outputs": ["y"]}],
  "initializers": [
    {"name": "wa", "shape": [16, 8, 3, 3], "init": "he_normal", "seed": 5},
    {"name": "ba", "shape": [16], "init": "he_normal", "seed": 6},
    {"name": "wb", "shape": [16, 16, 1, 1], "init": "he_normal", "seed": 7},
    {"name": "bb", "shape": [16], "init": "he_normal", "seed": 8}]})")
                               .string();
  const compiler::PolyhedralModel model = blockedModel(path, codegen::VectorUnit{8, 16});
  const ir::KernelCall &b = callOf(model.program, "b");
  // Kernel b: bias, conv, ReLU and the copy-out of the graph output y; no copy of r1_nChw8c
  // into a tensor of its own (block_channels' r1_nChw8c_1).
  CHECK(b.kernel.statements.size() == 4);
  CHECK_FALSE(bindsTensorNamed(b, "r1_nChw8c_1"));
  CHECK(b.kernel.toString().find("+= (r1_nChw8c[n, c0, oh + r, ow + s, c1] * ") !=
        std::string::npos);
  CHECK(compiledError(path, codegen::VectorUnit{8, 16}) <= 1e-5);
}

TEST_CASE("a conv blocked by 8 on a 16-lane unit reads its producer's nChw16c activation with "
          "input block 16, without a copy to NCHW and a pack",
          "[block-channels][forward-blocked]") {
  // x [1, 16, 6, 5] -> conv a (32, 3x3 pad 1, block 16) -> relu -> conv b (24, 1x1: 24 is a
  // multiple of 8, not of 16) -> y.
  const std::string path = test::writeModel("fwdinblock", R"({"name": "fwdinblock",
  "inputs": [{"name": "x", "shape": [1, 16, 6, 5]}], "outputs": ["y"],
  "nodes": [
    {"name": "a", "op_type": "Conv", "inputs": ["x", "wa", "ba"], "outputs": ["ca"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "relu1", "op_type": "Relu", "inputs": ["ca"], "outputs": ["r1"]},
    {"name": "b", "op_type": "Conv", "inputs": ["r1", "wb", "bb"], "outputs": ["y"],
     "attributes": {"kernel_shape": [1, 1]}}],
  "initializers": [
    {"name": "wa", "shape": [32, 16, 3, 3], "init": "he_normal", "seed": 13},
    {"name": "ba", "shape": [32], "init": "he_normal", "seed": 14},
    {"name": "wb", "shape": [24, 32, 1, 1], "init": "he_normal", "seed": 15},
    {"name": "bb", "shape": [24], "init": "he_normal", "seed": 16}]})")
                               .string();
  const compiler::PolyhedralModel model = blockedModel(path, codegen::VectorUnit{16, 32});
  const ir::KernelCall &b = callOf(model.program, "b");
  CHECK_FALSE(bindsTensorNamed(callOf(model.program, "a"), "r1"));
  CHECK_FALSE(bindsTensorNamed(b, "r1"));
  CHECK(b.kernel.toString().find("y_nChw8c[n, k0, oh, ow, k1] += (r1_nChw16c[n, c0, oh + r, "
                                 "ow + s, c1] * wb_OIhw16i8o[k0, c0, r, s, c1, k1])") !=
        std::string::npos);
  CHECK(compiledError(path, codegen::VectorUnit{16, 32}) <= 1e-5);
}
