// pad_input (compiler/transforms/PadInput.h): the packing statements and padded buffer it adds,
// the box domain it leaves, its refusals, and the default trace that uses it with a register
// tile, compiled and compared with the reference executor.
#include "compiler/transforms/PadInput.h"
#include "compiler/transforms/DefaultSchedule.h"
#include "compiler/transforms/TransformErrors.h"
#include "ir/lower/Lower.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

using namespace nasc;

namespace {

/// The program of test::convReluNet `name` (x [1, 2, h, w], k output channels, 3x3, padding 1).
ir::Program convProgram(const std::string &name, int64_t k, int64_t h, int64_t w) {
  return ir::lowerGraph(
      ir::loadModel(test::writeModel(name, test::convReluNet(name, 1, 2, h, w, k, 3)).string()));
}

} // namespace

TEST_CASE("pad_input zero-fills the halo of a padded buffer, copies the input into it and makes "
          "the domain a box",
          "[pad-input]") {
  ir::Program program = convProgram("padconv", 8, 4, 5);
  const size_t buffers = program.buffers.size();
  compiler::padInput(program, 0, "S1");
  const ir::Kernel &kernel = program.calls[0].kernel;
  REQUIRE(program.buffers.size() == buffers + 1);
  CHECK(program.buffers.back().kind == ir::BufferKind::Temp);
  CHECK(program.buffers.back().shape == ir::Shape{1, 2, 6, 7});
  CHECK(program.calls[0].args.back() == static_cast<int>(buffers));
  CHECK(kernel.toString() == R"(kernel conv
  tensor x : 1x2x4x5
  tensor w : 8x2x3x3
  tensor b : 8
  tensor y : 1x8x4x5
  tensor x_padded : 1x2x6x7
  P3[d0 < 1, d1 < 2, d2 < 1, d3 < 7]
    x_padded[d0, d1, d2, d3] = 0
  P4[d0 < 1, d1 < 2, d2 < 1, d3 < 7]
    x_padded[d0, d1, d2 + 5, d3] = 0
  P5[d0 < 1, d1 < 2, d2 < 4, d3 < 1]
    x_padded[d0, d1, d2 + 1, d3] = 0
  P6[d0 < 1, d1 < 2, d2 < 4, d3 < 1]
    x_padded[d0, d1, d2 + 1, d3 + 6] = 0
  P7[d0 < 1, d1 < 2, d2 < 4, d3 < 5]
    x_padded[d0, d1, d2 + 1, d3 + 1] = x[d0, d1, d2, d3]
  S0[n < 1, k < 8, oh < 4, ow < 5]
    y[n, k, oh, ow] = b[k]
  S1[n < 1, k < 8, oh < 4, ow < 5, c* < 2, r* < 3, s* < 3]
    y[n, k, oh, ow] += (x_padded[n, c, oh + r, ow + s] * w[k, c, r, s])
  S2[n < 1, k < 8, oh < 4, ow < 5]
    y[n, k, oh, ow] = max(y[n, k, oh, ow], 0)
)");
}

TEST_CASE("pad_input refuses statements that are not zero-padded convolutions", "[pad-input]") {
  ir::Program program = convProgram("padconv", 8, 4, 5);
  CHECK_THROWS_AS(compiler::padInput(program, 0, "S9"), compiler::UnknownStatement);
  CHECK_THROWS_WITH(compiler::padInput(program, 0, "S0"),
                    Catch::Contains("is not a zero-padded convolution: it is not an Add update"));
  compiler::padInput(program, 0, "S1");
  CHECK_THROWS_WITH(compiler::padInput(program, 0, "S1"),
                    Catch::Contains("its domain is already a box"));
  CHECK_THROWS_AS(compiler::padInput(program, 0, "S1"), compiler::NotZeroPadded);
}

TEST_CASE("the default trace pads a conv's input, blocks its channels, register-tiles it and "
          "fuses its bias, ReLU and copy-out into its rows",
          "[pad-input]") {
  const std::string net = test::convReluNet("tiledconv", 2, 3, 6, 16, 16, 7);
  const std::string path = test::writeModel("tiledconv", net).string();
  compiler::PolyhedralModel model =
      compiler::lowerToPolyhedral(ir::loadModel(path), {}, codegen::VectorUnit{16, 32});
  CHECK(compiler::scheduleToJson(model.schedule()) == R"({
  "nasc_schedule": 1,
  "kernels": {
    "conv": [
      {"primitive":"pad_input","statement":"S1"},
      {"primitive":"block_channels","statement":"S1","block":16,"input_block":3},
      {"primitive":"interchange","statement":"S1","order":[0,1,2,5,6,7,8,3,4]},
      {"primitive":"unroll","statement":"S1","member":7,"factor":16,"band":0},
      {"primitive":"fuse","statements":["S0","S1","S2","P8"],"depth":3},
      {"primitive":"fuse","statements":["P3","P4","P5","P6","P7"],"depth":2},
      {"primitive":"parallelize","statement":"S0","member":0,"band":0}
    ]
  }
}
)");
  CHECK(test::referenceError(std::move(model), path, 2, 3) <= 1e-5);
}
