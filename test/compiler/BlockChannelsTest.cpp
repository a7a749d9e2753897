// block_channels (compiler/transforms/BlockChannels.h): the blocked tensors and statements it
// makes for dense, grouped and depthwise convolutions (with and without a channel multiplier),
// the weights it permutes at compile time, its refusals, blocked max-pools, and blocked
// convolutions (padded, strided, 1x1, an RGB stem, a fused residual Add; grouped and depthwise
// ones) compiled with the layout alone and with the default trace of AVX-512, AVX2 and NEON-sized
// vector units, against the reference executor.
#include "compiler/transforms/BlockChannels.h"
#include "compiler/transforms/DefaultSchedule.h"
#include "compiler/transforms/KernelEdit.h"
#include "compiler/transforms/PadInput.h"
#include "compiler/transforms/TransformErrors.h"
#include "ir/lower/Lower.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

using namespace nasc;

namespace {

/// A model x [1, c, h, w] -> Conv (k output channels, `attributes`, which give `group`) -> y,
/// or, with `residual`, -> Add(conv, x) -> Relu -> y (then k must equal c and the conv keep
/// h x w).
std::string convNet(const std::string &name, int64_t c, int64_t h, int64_t w, int64_t k,
                    int64_t kernel, const std::string &attributes, bool residual = false,
                    int64_t group = 1) {
  auto str = [](int64_t v) { return std::to_string(v); };
  const std::string conv = R"({"name": "conv", "op_type": "Conv", "inputs": ["x", "w", "b"],
     "outputs": [")" + std::string(residual ? "c" : "y") +
                           R"("], "attributes": )" + attributes + "}";
  const std::string tail = residual ? R"(,
    {"name": "add", "op_type": "Add", "inputs": ["c", "x"], "outputs": ["s"]},
    {"name": "relu", "op_type": "Relu", "inputs": ["s"], "outputs": ["y"]})"
                                    : "";
  return R"({"name": ")" + name + R"(", "inputs": [{"name": "x", "shape": [1, )" + str(c) + ", " +
         str(h) + ", " + str(w) + R"(]}], "outputs": ["y"],
  "nodes": [)" +
         conv + tail + R"(],
  "initializers": [
    {"name": "w", "shape": [)" +
         str(k) + ", " + str(c / group) + ", " + str(kernel) + ", " + str(kernel) +
         R"(], "init": "he_normal", "seed": 3},
    {"name": "b", "shape": [)" +
         str(k) + R"(], "init": "he_normal", "seed": 4}]})";
}

ir::Program lower(const std::string &name, const std::string &json) {
  return ir::lowerGraph(ir::loadModel(test::writeModel(name, json).string()));
}

/// The buffer bound to kernel tensor `tensor` of call 0.
const ir::Buffer &boundBuffer(const ir::Program &program, int tensor) {
  return program.buffers.at(
      static_cast<size_t>(program.calls[0].args.at(static_cast<size_t>(tensor))));
}

compiler::ModelSchedule layoutOnly(const std::string &node,
                                   std::vector<compiler::ScheduleStep> steps) {
  return {"test", {compiler::KernelSchedule{node, std::move(steps)}}};
}

} // namespace

TEST_CASE("block_channels moves a padded conv to nChw[x]c activations and OIhw[y]i[x]o weights",
          "[block-channels]") {
  ir::Program program = lower("blockconv", test::convReluNet("blockconv", 1, 4, 3, 5, 16, 7));
  compiler::padInput(program, 0, "S1");
  const ir::Tensor weights = boundBuffer(program, 1).data;
  const size_t buffers = program.buffers.size();
  compiler::blockChannels(program, 0, "S1", 8, 2);
  const ir::Kernel &kernel = program.calls[0].kernel;
  CHECK(kernel.toString() == R"(kernel conv
  tensor x : 1x4x3x5
  tensor w_OIhw2i8o : 2x2x3x3x2x8
  tensor b : 16
  tensor y : 1x16x3x5
  tensor x_padded_nChw2c : 1x2x5x7x2
  tensor y_nChw8c : 1x2x3x5x8
  P3[d0 < 1, d1_0 < 2, d2 < 1, d3 < 7, d1_1 < 2]
    x_padded_nChw2c[d0, d1_0, d2, d3, d1_1] = 0
  P4[d0 < 1, d1_0 < 2, d2 < 1, d3 < 7, d1_1 < 2]
    x_padded_nChw2c[d0, d1_0, d2 + 4, d3, d1_1] = 0
  P5[d0 < 1, d1_0 < 2, d2 < 3, d3 < 1, d1_1 < 2]
    x_padded_nChw2c[d0, d1_0, d2 + 1, d3, d1_1] = 0
  P6[d0 < 1, d1_0 < 2, d2 < 3, d3 < 1, d1_1 < 2]
    x_padded_nChw2c[d0, d1_0, d2 + 1, d3 + 6, d1_1] = 0
  P7[d0 < 1, d1_0 < 2, d2 < 3, d3 < 5, d1_1 < 2]
    x_padded_nChw2c[d0, d1_0, d2 + 1, d3 + 1, d1_1] = x[d0, 2*d1_0 + d1_1, d2, d3]
  S0[n < 1, k0 < 2, oh < 3, ow < 5, k1 < 8]
    y_nChw8c[n, k0, oh, ow, k1] = b[8*k0 + k1]
  S1[n < 1, k0 < 2, oh < 3, ow < 5, k1 < 8, c0* < 2, r* < 3, s* < 3, c1* < 2]
    y_nChw8c[n, k0, oh, ow, k1] += (x_padded_nChw2c[n, c0, oh + r, ow + s, c1] * w_OIhw2i8o[k0, c0, r, s, c1, k1])
  S2[n < 1, k0 < 2, oh < 3, ow < 5, k1 < 8]
    y_nChw8c[n, k0, oh, ow, k1] = max(y_nChw8c[n, k0, oh, ow, k1], 0)
  P8[d0 < 1, d1_0 < 2, d2 < 3, d1_1 < 8, d3 < 5]
    y[d0, 8*d1_0 + d1_1, d2, d3] = y_nChw8c[d0, d1_0, d2, d3, d1_1]
)");
  // W is used by this conv only: its buffer is replaced (one new buffer: y_nChw8c).
  REQUIRE(program.buffers.size() == buffers + 1);
  const ir::Buffer &blocked = boundBuffer(program, 1);
  CHECK(blocked.kind == ir::BufferKind::Constant);
  CHECK(blocked.shape == ir::Shape{2, 2, 3, 3, 2, 8});
  int mismatches = 0;
  for (int64_t k = 0; k < 16; ++k)
    for (int64_t c = 0; c < 4; ++c)
      for (int64_t r = 0; r < 3; ++r)
        for (int64_t s = 0; s < 3; ++s) {
          const int64_t at = (((((k / 8) * 2 + c / 2) * 3 + r) * 3 + s) * 2 + c % 2) * 8 + k % 8;
          mismatches += blocked.data.f[static_cast<size_t>(at)] !=
                        weights.f[static_cast<size_t>(((k * 4 + c) * 3 + r) * 3 + s)];
        }
  CHECK(mismatches == 0);
  CHECK(program.buffers[static_cast<size_t>(program.calls[0].args.back())].shape ==
        ir::Shape{1, 2, 3, 5, 8});
}

TEST_CASE("block_channels packs an unpadded conv's input into a new buffer first",
          "[block-channels]") {
  ir::Program program =
      lower("blockpoint", convNet("blockpoint", 16, 4, 4, 8, 1, R"({"strides": [2, 2]})"));
  compiler::blockChannels(program, 0, "S1", 4);
  CHECK(program.calls[0].kernel.toString() == R"(kernel conv
  tensor x : 1x16x4x4
  tensor w_OIhw4i4o : 2x4x1x1x4x4
  tensor b : 8
  tensor y : 1x8x2x2
  tensor x_nChw4c : 1x4x4x4x4
  tensor y_nChw4c : 1x2x2x2x4
  P2[d0 < 1, d1_0 < 4, d2 < 4, d3 < 4, d1_1 < 4]
    x_nChw4c[d0, d1_0, d2, d3, d1_1] = x[d0, 4*d1_0 + d1_1, d2, d3]
  S0[n < 1, k0 < 2, oh < 2, ow < 2, k1 < 4]
    y_nChw4c[n, k0, oh, ow, k1] = b[4*k0 + k1]
  S1[n < 1, k0 < 2, oh < 2, ow < 2, k1 < 4, c0* < 4, r* < 1, s* < 1, c1* < 4]
    y_nChw4c[n, k0, oh, ow, k1] += (x_nChw4c[n, c0, 2*oh + r, 2*ow + s, c1] * w_OIhw4i4o[k0, c0, r, s, c1, k1])
  P3[d0 < 1, d1_0 < 2, d2 < 2, d1_1 < 4, d3 < 2]
    y[d0, 4*d1_0 + d1_1, d2, d3] = y_nChw4c[d0, d1_0, d2, d3, d1_1]
)");
}

TEST_CASE("block_channels refuses what it cannot block, saying why", "[block-channels]") {
  ir::Program program = lower("blockconv", test::convReluNet("blockconv", 1, 4, 3, 5, 16, 7));
  CHECK_THROWS_AS(compiler::blockChannels(program, 0, "S9", 8), compiler::UnknownStatement);
  CHECK_THROWS_WITH(compiler::blockChannels(program, 0, "S0", 8),
                    Catch::Contains("it is not an Add update of a product of two loads"));
  CHECK_THROWS_WITH(compiler::blockChannels(program, 0, "S1", 8),
                    Catch::Contains("its domain is not a box (apply pad_input first)"));
  compiler::padInput(program, 0, "S1");
  CHECK_THROWS_WITH(compiler::blockChannels(program, 0, "S1", 3),
                    Catch::Contains("the block 3 does not divide its 16 output channels"));
  CHECK_THROWS_WITH(compiler::blockChannels(program, 0, "S1", 8, 3),
                    Catch::Contains("the input block 3 does not divide its 4 input channels"));
  CHECK_THROWS_AS(compiler::blockChannels(program, 0, "S1", 3), compiler::NotBlockable);
  compiler::blockChannels(program, 0, "S1", 8);
  CHECK_THROWS_WITH(compiler::blockChannels(program, 0, "S1", 8),
                    Catch::Contains("are not 4-d (NCHW, NCHW, OIHW)"));

  ir::Program grouped =
      lower("blockgroup", convNet("blockgroup", 8, 4, 4, 8, 1, R"({"group": 2})", false, 2));
  CHECK_THROWS_WITH(compiler::blockChannels(grouped, 0, "S1", 8),
                    Catch::Contains("the block 8 does not divide its 4 output channels per group "
                                    "and its groups have 4 input channels, not one (depthwise)"));
  CHECK_THROWS_WITH(compiler::blockChannels(grouped, 0, "S1", 4, 8),
                    Catch::Contains("the input block 8 does not divide its 4 input channels per "
                                    "group"));
  ir::Program multiplier =
      lower("blockmul", convNet("blockmul", 4, 4, 4, 12, 1, R"({"group": 4})", false, 4));
  CHECK_THROWS_WITH(compiler::blockChannels(multiplier, 0, "S1", 4),
                    Catch::Contains("the block 4 does not divide its 3 output channels per group, "
                                    "nor they the block"));
  ir::Program depthwise =
      lower("blockdw", convNet("blockdw", 8, 4, 4, 8, 1, R"({"group": 8})", false, 8));
  CHECK_THROWS_WITH(compiler::blockChannels(depthwise, 0, "S1", 8, 4),
                    Catch::Contains("the input block 4 of a depthwise convolution is not its "
                                    "block 8"));
}

TEST_CASE("block_channels blocks a grouped conv inside each group, in the dense conv's layouts",
          "[block-channels]") {
  ir::Program program =
      lower("blockgrp",
            convNet("blockgrp", 8, 3, 5, 16, 3, R"({"pads": [1, 1, 1, 1], "group": 2})", false, 2));
  compiler::padInput(program, 0, "S1");
  const ir::Tensor weights = boundBuffer(program, 1).data;
  CHECK(compiler::blockChannels(program, 0, "S1", 4, 2) == 2);
  CHECK(program.calls[0].kernel.toString() == R"(kernel conv
  tensor x : 1x8x3x5
  tensor w_OIhw2i4o : 4x2x3x3x2x4
  tensor b : 16
  tensor y : 1x16x3x5
  tensor x_padded_nChw2c : 1x4x5x7x2
  tensor y_nChw4c : 1x4x3x5x4
  P2[d0 < 1, d1_0 < 4, d2 < 1, d3 < 7, d1_1 < 2]
    x_padded_nChw2c[d0, d1_0, d2, d3, d1_1] = 0
  P3[d0 < 1, d1_0 < 4, d2 < 1, d3 < 7, d1_1 < 2]
    x_padded_nChw2c[d0, d1_0, d2 + 4, d3, d1_1] = 0
  P4[d0 < 1, d1_0 < 4, d2 < 3, d3 < 1, d1_1 < 2]
    x_padded_nChw2c[d0, d1_0, d2 + 1, d3, d1_1] = 0
  P5[d0 < 1, d1_0 < 4, d2 < 3, d3 < 1, d1_1 < 2]
    x_padded_nChw2c[d0, d1_0, d2 + 1, d3 + 6, d1_1] = 0
  P6[d0 < 1, d1_0 < 4, d2 < 3, d3 < 5, d1_1 < 2]
    x_padded_nChw2c[d0, d1_0, d2 + 1, d3 + 1, d1_1] = x[d0, 2*d1_0 + d1_1, d2, d3]
  S0[n < 1, k0 < 4, oh < 3, ow < 5, k1 < 4]
    y_nChw4c[n, k0, oh, ow, k1] = b[4*k0 + k1]
  S1[n < 1, g < 2, kg0 < 2, oh < 3, ow < 5, kg1 < 4, cg0* < 2, r* < 3, s* < 3, cg1* < 2]
    y_nChw4c[n, 2*g + kg0, oh, ow, kg1] += (x_padded_nChw2c[n, 2*g + cg0, oh + r, ow + s, cg1] * w_OIhw2i4o[2*g + kg0, cg0, r, s, cg1, kg1])
  P7[d0 < 1, d1_0 < 4, d2 < 3, d1_1 < 4, d3 < 5]
    y[d0, 4*d1_0 + d1_1, d2, d3] = y_nChw4c[d0, d1_0, d2, d3, d1_1]
)");
  // W [16, 4, 3, 3] (4 input channels per group) as OIhw2i4o over all 16 output channels.
  const ir::Tensor &blocked = boundBuffer(program, 1).data;
  int mismatches = 0;
  for (int64_t k = 0; k < 16; ++k)
    for (int64_t c = 0; c < 4; ++c)
      for (int64_t rs = 0; rs < 9; ++rs) {
        const int64_t at = ((((k / 4) * 2 + c / 2) * 9 + rs) * 2 + c % 2) * 4 + k % 4;
        mismatches += blocked.f[static_cast<size_t>(at)] !=
                      weights.f[static_cast<size_t>((k * 4 + c) * 9 + rs)];
      }
  CHECK(mismatches == 0);
}

TEST_CASE("block_channels vectorizes a depthwise conv over its channels", "[block-channels]") {
  ir::Program program =
      lower("blockdw", convNet("blockdw", 16, 3, 5, 16, 3, R"({"pads": [1, 1, 1, 1], "group": 16})",
                               false, 16));
  compiler::padInput(program, 0, "S1");
  CHECK(compiler::blockChannels(program, 0, "S1", 8) == 8);
  CHECK(program.calls[0].kernel.toString() == R"(kernel conv
  tensor x : 1x16x3x5
  tensor w_OIhw1i8o : 2x1x3x3x1x8
  tensor b : 16
  tensor y : 1x16x3x5
  tensor x_padded_nChw8c : 1x2x5x7x8
  tensor y_nChw8c : 1x2x3x5x8
  P2[d0 < 1, d1_0 < 2, d2 < 1, d3 < 7, d1_1 < 8]
    x_padded_nChw8c[d0, d1_0, d2, d3, d1_1] = 0
  P3[d0 < 1, d1_0 < 2, d2 < 1, d3 < 7, d1_1 < 8]
    x_padded_nChw8c[d0, d1_0, d2 + 4, d3, d1_1] = 0
  P4[d0 < 1, d1_0 < 2, d2 < 3, d3 < 1, d1_1 < 8]
    x_padded_nChw8c[d0, d1_0, d2 + 1, d3, d1_1] = 0
  P5[d0 < 1, d1_0 < 2, d2 < 3, d3 < 1, d1_1 < 8]
    x_padded_nChw8c[d0, d1_0, d2 + 1, d3 + 6, d1_1] = 0
  P6[d0 < 1, d1_0 < 2, d2 < 3, d3 < 5, d1_1 < 8]
    x_padded_nChw8c[d0, d1_0, d2 + 1, d3 + 1, d1_1] = x[d0, 8*d1_0 + d1_1, d2, d3]
  S0[n < 1, k0 < 2, oh < 3, ow < 5, k1 < 8]
    y_nChw8c[n, k0, oh, ow, k1] = b[8*k0 + k1]
  S1[n < 1, k0 < 2, oh < 3, ow < 5, k1 < 8, r* < 3, s* < 3]
    y_nChw8c[n, k0, oh, ow, k1] += (x_padded_nChw8c[n, k0, oh + r, ow + s, k1] * w_OIhw1i8o[k0, 0, r, s, 0, k1])
  P7[d0 < 1, d1_0 < 2, d2 < 3, d1_1 < 8, d3 < 5]
    y[d0, 8*d1_0 + d1_1, d2, d3] = y_nChw8c[d0, d1_0, d2, d3, d1_1]
)");
}

TEST_CASE("block_channels repeats the input of a depthwise conv with a channel multiplier",
          "[block-channels]") {
  ir::Program program =
      lower("blockmul",
            convNet("blockmul", 4, 3, 5, 8, 3, R"({"pads": [1, 1, 1, 1], "group": 4})", false, 4));
  compiler::padInput(program, 0, "S1");
  CHECK(compiler::blockChannels(program, 0, "S1", 8) == 8);
  CHECK(program.calls[0].kernel.toString() == R"(kernel conv
  tensor x : 1x4x3x5
  tensor w_OIhw1i8o : 1x1x3x3x1x8
  tensor b : 8
  tensor y : 1x8x3x5
  tensor x_padded : 1x4x5x7
  tensor x_padded_repeat2_nChw8c : 1x1x5x7x8
  tensor y_nChw8c : 1x1x3x5x8
  P2[d0 < 1, d1 < 4, d2 < 1, d3 < 7]
    x_padded[d0, d1, d2, d3] = 0
  P3[d0 < 1, d1 < 4, d2 < 1, d3 < 7]
    x_padded[d0, d1, d2 + 4, d3] = 0
  P4[d0 < 1, d1 < 4, d2 < 3, d3 < 1]
    x_padded[d0, d1, d2 + 1, d3] = 0
  P5[d0 < 1, d1 < 4, d2 < 3, d3 < 1]
    x_padded[d0, d1, d2 + 1, d3 + 6] = 0
  P6[d0 < 1, d1 < 4, d2 < 3, d3 < 5]
    x_padded[d0, d1, d2 + 1, d3 + 1] = x[d0, d1, d2, d3]
  P7[d0 < 1, d1_0 < 1, d2 < 5, d3 < 7, d1_1 < 4, j < 2]
    x_padded_repeat2_nChw8c[d0, d1_0, d2, d3, 2*d1_1 + j] = x_padded[d0, 4*d1_0 + d1_1, d2, d3]
  S0[n < 1, k0 < 1, oh < 3, ow < 5, k1 < 8]
    y_nChw8c[n, k0, oh, ow, k1] = b[8*k0 + k1]
  S1[n < 1, k0 < 1, oh < 3, ow < 5, k1 < 8, r* < 3, s* < 3]
    y_nChw8c[n, k0, oh, ow, k1] += (x_padded_repeat2_nChw8c[n, k0, oh + r, ow + s, k1] * w_OIhw1i8o[k0, 0, r, s, 0, k1])
  P8[d0 < 1, d1_0 < 1, d2 < 3, d1_1 < 8, d3 < 5]
    y[d0, 8*d1_0 + d1_1, d2, d3] = y_nChw8c[d0, d1_0, d2, d3, d1_1]
)");
}

/// A model x [1, c, h, w] -> MaxPool (`attributes`) -> y.
std::string poolNet(const std::string &name, int64_t c, int64_t h, int64_t w,
                    const std::string &attributes) {
  return R"({"name": ")" + name + R"(", "inputs": [{"name": "x", "shape": [1, )" +
         std::to_string(c) + ", " + std::to_string(h) + ", " + std::to_string(w) +
         R"(]}], "outputs": ["y"],
  "nodes": [{"name": "pool", "op_type": "MaxPool", "inputs": ["x"], "outputs": ["y"],
     "attributes": )" +
         attributes + "}]}";
}

TEST_CASE("block_channels blocks a max-pool's channels, its padding kept in its domain",
          "[block-channels]") {
  const std::string attributes =
      R"({"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]})";
  ir::Program program = lower("blockpool", poolNet("blockpool", 16, 5, 5, attributes));
  CHECK(compiler::blockChannels(program, 0, "S1", 8) == 8);
  // O'[n, c0, oh, ow, c1] max= I'[n, c0, 2·oh + r - 1, 2·ow + s - 1, c1], 0 <= 2·oh + r - 1 < 5
  // (ONNX MaxPool: padded points take no part); the input packed first, the output copied out.
  CHECK(program.calls[0].kernel.toString() == R"(kernel pool
  tensor x : 1x16x5x5
  tensor y : 1x16x3x3
  tensor x_nChw8c : 1x2x5x5x8
  tensor y_nChw8c : 1x2x3x3x8
  P2[d0 < 1, d1_0 < 2, d2 < 5, d3 < 5, d1_1 < 8]
    x_nChw8c[d0, d1_0, d2, d3, d1_1] = x[d0, 8*d1_0 + d1_1, d2, d3]
  S0[n < 1, c0 < 2, oh < 3, ow < 3, c1 < 8]
    y_nChw8c[n, c0, oh, ow, c1] = -inf
  S1[n < 1, c0 < 2, oh < 3, ow < 3, c1 < 8, r* < 3, s* < 3] : 2*oh + r - 1 >= 0 : -2*oh - r + 5 >= 0 : 2*ow + s - 1 >= 0 : -2*ow - s + 5 >= 0
    y_nChw8c[n, c0, oh, ow, c1] max= x_nChw8c[n, c0, 2*oh + r - 1, 2*ow + s - 1, c1]
  P3[d0 < 1, d1_0 < 2, d2 < 3, d1_1 < 8, d3 < 3]
    y[d0, 8*d1_0 + d1_1, d2, d3] = y_nChw8c[d0, d1_0, d2, d3, d1_1]
)");

  ir::Program odd = lower("blockpoolodd", poolNet("blockpoolodd", 12, 5, 5, attributes));
  CHECK_THROWS_WITH(compiler::blockChannels(odd, 0, "S1", 8),
                    Catch::Contains("the block 8 does not divide its 12 channels"));
  CHECK_THROWS_WITH(compiler::blockChannels(odd, 0, "S1", 4, 2),
                    Catch::Contains("the input block 2 of a max-pool is not its block 4"));
  CHECK_THROWS_WITH(compiler::blockChannels(odd, 0, "S0", 4),
                    Catch::Contains("it is not an Add update of a product of two loads"));
}

TEST_CASE("blocked max-pools compute what the reference executor computes",
          "[block-channels][jit]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"blkpool_pad", poolNet("blkpool_pad", 16, 9, 10,
                              R"({"kernel_shape": [3, 3], "strides": [2, 2],
                                  "pads": [1, 0, 1, 1]})")},
      {"blkpool_ceil", poolNet("blkpool_ceil", 8, 8, 7,
                               R"({"kernel_shape": [2, 3], "strides": [2, 2],
                                   "ceil_mode": 1})")},
      {"blkpool_dilated",
       poolNet("blkpool_dilated", 32, 9, 9, R"({"kernel_shape": [2, 2], "dilations": [2, 2]})")},
  };
  for (const auto &[name, json] : cases) {
    INFO(name);
    const std::string path = test::writeModel(name, json).string();
    const compiler::ModelSchedule blocked =
        layoutOnly("pool", {{"block_channels", {"S1"}, {{"block", {8}}, {"input_block", {0}}}}});
    CHECK(test::referenceError(compiler::lowerToPolyhedral(ir::loadModel(path), blocked), path) ==
          0.0);
  }
}

TEST_CASE("blocked convolutions compute what the reference executor computes",
          "[block-channels][jit]") {
  struct Case {
    std::string name, json;
    int block = 8;
  };
  const std::vector<Case> cases = {
      {"blk_pad", convNet("blk_pad", 4, 6, 7, 16, 3, R"({"pads": [1, 1, 1, 1]})")},
      {"blk_stride",
       convNet("blk_stride", 8, 9, 8, 16, 3, R"({"strides": [2, 2], "pads": [1, 0, 0, 1]})")},
      {"blk_point", convNet("blk_point", 16, 5, 6, 8, 1, R"({"strides": [2, 2]})")},
      {"blk_stem",
       convNet("blk_stem", 3, 15, 14, 16, 7, R"({"strides": [2, 2], "pads": [3, 3, 3, 3]})")},
      {"blk_residual", convNet("blk_residual", 8, 5, 7, 8, 3, R"({"pads": [1, 1, 1, 1]})", true)},
      {"blk_group",
       convNet("blk_group", 16, 6, 7, 32, 3, R"({"pads": [1, 1, 1, 1], "group": 2})", false, 2)},
      {"blk_group_stride",
       convNet("blk_group_stride", 16, 9, 8, 16, 3,
               R"({"strides": [2, 2], "pads": [1, 0, 0, 1], "group": 4})", false, 4),
       4},
      {"blk_group_point", convNet("blk_group_point", 32, 5, 6, 16, 1, R"({"group": 2})", false, 2)},
      {"blk_group_residual", convNet("blk_group_residual", 16, 5, 7, 16, 3,
                                     R"({"pads": [1, 1, 1, 1], "group": 2})", true, 2)},
      {"blk_dw",
       convNet("blk_dw", 16, 6, 7, 16, 3, R"({"pads": [1, 1, 1, 1], "group": 16})", false, 16)},
      {"blk_dw_stride",
       convNet("blk_dw_stride", 8, 9, 8, 8, 3,
               R"({"strides": [2, 2], "pads": [1, 1, 1, 1], "group": 8})", false, 8)},
      {"blk_dw_residual",
       convNet("blk_dw_residual", 8, 5, 7, 8, 3, R"({"pads": [1, 1, 1, 1], "group": 8})", true, 8)},
      {"blk_dw_x2",
       convNet("blk_dw_x2", 8, 6, 7, 16, 3, R"({"pads": [1, 1, 1, 1], "group": 8})", false, 8)},
      {"blk_dw_x4",
       convNet("blk_dw_x4", 2, 6, 7, 8, 3, R"({"pads": [1, 1, 1, 1], "group": 2})", false, 2)},
      {"blk_dw_x8",
       convNet("blk_dw_x8", 2, 6, 7, 16, 3, R"({"pads": [1, 1, 1, 1], "group": 2})", false, 2)},
  };
  for (const Case &c : cases) {
    const std::string path = test::writeModel(c.name, c.json).string();
    INFO(c.name);
    const bool padded = c.name != "blk_point" && c.name != "blk_group_point";
    std::vector<compiler::ScheduleStep> steps;
    if (padded)
      steps.push_back({"pad_input", {"S1"}, {}});
    steps.push_back({"block_channels", {"S1"}, {{"block", {c.block}}, {"input_block", {0}}}});
    CHECK(test::referenceError(
              compiler::lowerToPolyhedral(ir::loadModel(path), layoutOnly("conv", steps)), path) <=
          1e-5);
    for (codegen::VectorUnit unit :
         {codegen::VectorUnit{16, 32}, codegen::VectorUnit{8, 16}, codegen::VectorUnit{4, 32}}) {
      INFO("lanes " << unit.lanes);
      compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path), {}, unit);
      CHECK(compiler::scheduleToJson(model.schedule()).find("block_channels") != std::string::npos);
      CHECK(test::referenceError(std::move(model), path, 2) <= 1e-5);
    }
  }
}

TEST_CASE("the default register tile of a blocked conv holds up to 16 accumulator vectors",
          "[block-channels][default-schedule]") {
  // Tile loops as (iterator, count) of the blocked conv S1: dense S1[n, k0, oh, ow, k1, c0, r, s,
  // c1], grouped S1[n, g, k'0, oh, ow, k'1, c'0, r, s, c'1], depthwise S1[n, k0, oh, ow, k1, r, s].
  auto tileOf = [](int64_t width, int64_t block, codegen::VectorUnit unit, int64_t group = 1,
                   compiler::TraceChoices choices = {}) {
    ir::Program program = lower(
        "blocktile",
        convNet("blocktile", 64, 4, width, 64, 3,
                R"({"pads": [1, 1, 1, 1], "group": )" + std::to_string(group) + "}", false, group));
    compiler::padInput(program, 0, "S1");
    compiler::blockChannels(program, 0, "S1", block);
    std::optional<compiler::RegisterTile> tile = compiler::defaultRegisterTile(
        *compiler::findStatement(program.calls[0].kernel, "S1"), unit, choices);
    std::vector<std::pair<size_t, int>> loops;
    for (const compiler::RegisterTile::Loop &loop : tile.value().loops)
      loops.push_back({loop.dim, loop.count});
    return loops;
  };
  using Loops = std::vector<std::pair<size_t, int>>;
  // AVX-512: two vectors of k1 (k0 unrolled by 2) times the largest width divisor up to 8.
  CHECK(tileOf(7, 16, {16, 32}) == Loops{{1, 2}, {3, 7}, {4, 16}});
  CHECK(tileOf(56, 16, {16, 32}) == Loops{{1, 2}, {3, 8}, {4, 16}});
  // A whole row of 4 columns, 2 x 4 = 8 accumulators, also takes 16 / 8 = 2 output rows (oh),
  // so each weight vector serves 8 columns; AVX2's 13 accumulator registers hold only 1 row.
  CHECK(tileOf(4, 16, {16, 32}) == Loops{{1, 2}, {2, 2}, {3, 4}, {4, 16}});
  CHECK(tileOf(4, 8, {8, 16}) == Loops{{1, 2}, {3, 4}, {4, 8}});
  // AVX2 (16 registers): 2 x 4 keeps 8 accumulators; where 2 x r cannot, one vector takes up
  // to 14 columns (14 accumulators, a weight vector and a broadcast); a whole row of 7 columns,
  // 7 accumulators, takes 14 / 7 = 2 output rows (oh, 4 of them here).
  CHECK(tileOf(7, 8, {8, 16}) == Loops{{2, 2}, {3, 7}, {4, 8}});
  CHECK(tileOf(14, 8, {8, 16}) == Loops{{3, 14}, {4, 8}});
  CHECK(tileOf(28, 8, {8, 16}) == Loops{{1, 2}, {3, 4}, {4, 8}});
  // Grouped (16 channels per group): k'0 takes k0's place.
  CHECK(tileOf(56, 8, {8, 16}, 4) == Loops{{2, 2}, {4, 4}, {5, 8}});
  // Depthwise: no broadcast input to share between vectors, so only columns.
  CHECK(tileOf(56, 8, {8, 16}, 64) == Loops{{3, 14}, {4, 8}});
  CHECK(tileOf(56, 16, {16, 32}, 64) == Loops{{3, 14}, {4, 16}});

  // TraceChoices (the search's schedule choices) in place of the default trace's own.
  // jam 1 on AVX2 at 28 columns: one vector, the largest divisor of 28 up to 14 accumulators.
  CHECK(tileOf(28, 8, {8, 16}, 1, {0, 1, 0}) == Loops{{3, 14}, {4, 8}});
  // unroll 4 caps those columns at 4.
  CHECK(tileOf(28, 8, {8, 16}, 1, {0, 1, 4}) == Loops{{3, 4}, {4, 8}});
  // unroll 7 alone: j = 2 (2 x 4 = 8 accumulators) still beats one vector of 7.
  CHECK(tileOf(28, 8, {8, 16}, 1, {0, 0, 7}) == Loops{{1, 2}, {3, 4}, {4, 8}});
  // jam 2 at 14 columns: 13 registers left over 2 rows hold 6 columns each, 14's divisor 2.
  CHECK(tileOf(14, 8, {8, 16}, 1, {0, 2, 0}) == Loops{{1, 2}, {3, 2}, {4, 8}});
  // A depthwise conv has no channel loop to jam: its own tile.
  CHECK(tileOf(56, 8, {8, 16}, 64, {0, 2, 0}) == Loops{{3, 14}, {4, 8}});
}

TEST_CASE("a one-vector tile takes output rows only when they read adjacent input rows",
          "[block-channels][default-schedule]") {
  // 1x1 convs 64 -> 64 from 4 x 14 to 2 x 7 on AVX2, blocked by 8: one vector of the 7 columns
  // holds 7 accumulators. Stride 1 (from 2 x 7): two output rows read adjacent input rows, so
  // the tile takes 2 of oh. Stride 2: oh's input rows 2 apart, a 1x1 window: no rows; grouped
  // (group 4, S1[n, g, k'0, oh, ow, k'1, c'0, r, s, c'1]), the tile must not take the groups
  // g, which the broadcast input also uses, in oh's place.
  auto tileOf = [](int64_t h, int64_t w, int64_t stride, int64_t group) {
    ir::Program program =
        lower("rowtile",
              convNet("rowtile", 64, h, w, 64, 1,
                      R"({"strides": [)" + std::to_string(stride) + ", " + std::to_string(stride) +
                          R"(], "group": )" + std::to_string(group) + "}",
                      false, group));
    compiler::blockChannels(program, 0, "S1", 8);
    std::optional<compiler::RegisterTile> tile = compiler::defaultRegisterTile(
        *compiler::findStatement(program.calls[0].kernel, "S1"), codegen::VectorUnit{8, 16});
    std::vector<std::pair<size_t, int>> loops;
    for (const compiler::RegisterTile::Loop &loop : tile.value().loops)
      loops.push_back({loop.dim, loop.count});
    return loops;
  };
  using Loops = std::vector<std::pair<size_t, int>>;
  CHECK(tileOf(2, 7, 1, 1) == Loops{{2, 2}, {3, 7}, {4, 8}});
  CHECK(tileOf(4, 14, 2, 1) == Loops{{3, 7}, {4, 8}});
  CHECK(tileOf(4, 14, 2, 4) == Loops{{4, 7}, {5, 8}});
}

TEST_CASE("a 1x1 conv's channels-outside tile chunks its input channels when a block's weights "
          "outgrow the L1 share",
          "[block-channels][default-schedule][jit]") {
  // S1[n, k0, oh, ow, k1, c0, r, s, c1] of a conv C -> 64 at 14 x 14, AVX2 (8 lanes, 16
  // registers), blocks of 8: the tile is 1 x 14 columns with k0 outside the rows. Per k0 the
  // weights are C x 8 floats: 512 channels, 16 KiB > kL1WeightBytes (8 KiB): c0 (64 blocks)
  // in chunks of 8; 128 channels, 4 KiB: no chunks. A 3x3 window or rows outside: no chunks.
  const codegen::VectorUnit avx2{8, 16};
  auto tileOf = [&](int64_t c, int64_t kernel, compiler::TraceChoices choices = {}) {
    const std::string pads = kernel == 3 ? R"({"pads": [1, 1, 1, 1]})" : "{}";
    ir::Program program = lower("chunk", convNet("chunk", c, 14, 14, 64, kernel, pads));
    if (kernel == 3)
      compiler::padInput(program, 0, "S1");
    compiler::blockChannels(program, 0, "S1", 8);
    return compiler::defaultRegisterTile(*compiler::findStatement(program.calls[0].kernel, "S1"),
                                         avx2, choices)
        .value();
  };
  const compiler::RegisterTile chunked = tileOf(512, 1);
  CHECK_FALSE(chunked.rowsOutside);
  REQUIRE(chunked.reductionChunk.has_value());
  CHECK(chunked.reductionChunk->dim == 5);
  CHECK(chunked.reductionChunk->count == 8);
  CHECK_FALSE(tileOf(128, 1).reductionChunk.has_value());
  CHECK_FALSE(tileOf(512, 3).reductionChunk.has_value());
  const compiler::RegisterTile rows = tileOf(512, 1, {0, 0, 0, compiler::kRowsOutside});
  CHECK(rows.rowsOutside);
  CHECK_FALSE(rows.reductionChunk.has_value());

  // The chunked default schedule (c0 split by 8, its chunks' loop right after k0, the bias and
  // copy-out fused at (n, k0)) computes what the reference executor computes.
  const std::string path =
      test::writeModel("chunk_run", convNet("chunk_run", 512, 14, 14, 64, 1, "{}")).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path), {}, avx2);
  const std::string schedule = compiler::scheduleToJson(model.schedule());
  CHECK(schedule.find(R"({"primitive":"split","statement":"S1","member":5,"factor":8,"band":0})") !=
        std::string::npos);
  CHECK(test::referenceError(std::move(model), path, 2) <= 1e-5);
}

TEST_CASE("a 3x3 conv's channels-outside tile chunks its input channels when one output-channel "
          "iteration's weights outgrow the L2 share",
          "[block-channels][default-schedule][jit]") {
  // S1[n, k0, oh, ow, k1, c0, r, s, c1] of a padded 3x3 conv C -> 64 at 7 x 7, blocks of 16
  // on AVX-512 (16 lanes, 32 registers): the tile is 2 x 7 columns with k0 outside the rows.
  // Per outer iteration of k0 the weights are 2 x 16 x C x 9 floats: 512 channels, 576 KiB >
  // kStreamCacheBytes (512 KiB): c0 (32 blocks) in chunks of kWindowReductionChunk = 2; 256
  // channels, 288 KiB: no chunks. AVX2 (8 lanes, 16 registers, a 1 x 7 x 2-row tile) at 512
  // channels: 1 x 8 x 512 x 9 floats, 144 KiB: no chunks.
  const codegen::VectorUnit avx512{16, 32}, avx2{8, 16};
  auto tileOf = [&](int64_t c, const codegen::VectorUnit &unit) {
    ir::Program program =
        lower("wchunk", convNet("wchunk", c, 7, 7, 64, 3, R"({"pads": [1, 1, 1, 1]})"));
    compiler::padInput(program, 0, "S1");
    compiler::blockChannels(program, 0, "S1", unit.lanes);
    return compiler::defaultRegisterTile(*compiler::findStatement(program.calls[0].kernel, "S1"),
                                         unit)
        .value();
  };
  const compiler::RegisterTile chunked = tileOf(512, avx512);
  CHECK_FALSE(chunked.rowsOutside);
  REQUIRE(chunked.reductionChunk.has_value());
  CHECK(chunked.reductionChunk->dim == 5);
  CHECK(chunked.reductionChunk->count == 2);
  CHECK_FALSE(tileOf(256, avx512).reductionChunk.has_value());
  CHECK_FALSE(tileOf(512, avx2).reductionChunk.has_value());

  // The chunked default schedule (c0 split by 2, its chunks' loop right after k0) computes what
  // the reference executor computes.
  const std::string path = test::writeModel("wchunk_run", convNet("wchunk_run", 512, 7, 7, 64, 3,
                                                                  R"({"pads": [1, 1, 1, 1]})"))
                               .string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path), {}, avx512);
  const std::string schedule = compiler::scheduleToJson(model.schedule());
  CHECK(schedule.find(R"({"primitive":"split","statement":"S1","member":6,"factor":2,"band":0})") !=
        std::string::npos);
  CHECK(test::referenceError(std::move(model), path, 2) <= 1e-5);
}
