// subsample_input (compiler/transforms/SubsampleInput.h): the compact buffer and copy it adds to
// a strided 1x1 conv, its refusals, and the default trace that uses it, alone and reading the
// blocked output of a previous conv, compiled and compared with the reference executor.
#include "compiler/transforms/SubsampleInput.h"
#include "compiler/transforms/DefaultSchedule.h"
#include "compiler/transforms/PadInput.h"
#include "compiler/transforms/TransformErrors.h"
#include "ir/lower/Lower.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace nasc;

namespace {

/// A Conv node `name` reading `in` (weights `name`_w [k, c, window, window] he_normal with seed
/// `seed`, bias `name`_b with seed + 1, padding window / 2) then a Relu to `name`_relu: its
/// JSON nodes and initializers.
struct ConvNode {
  nlohmann::json nodes, initializers;
};

ConvNode convNode(const std::string &name, const std::string &in, int64_t c, int64_t k,
                  int64_t window, int64_t stride, int seed) {
  const int64_t p = window / 2;
  nlohmann::json conv = {{"name", name},
                         {"op_type", "Conv"},
                         {"inputs", {in, name + "_w", name + "_b"}},
                         {"outputs", {name}},
                         {"attributes",
                          {{"kernel_shape", {window, window}},
                           {"pads", {p, p, p, p}},
                           {"strides", {stride, stride}}}}};
  nlohmann::json relu = {{"name", name + "_relu"},
                         {"op_type", "Relu"},
                         {"inputs", {name}},
                         {"outputs", {name + "_relu"}}};
  nlohmann::json w = {{"name", name + "_w"},
                      {"shape", {k, c, window, window}},
                      {"init", "he_normal"},
                      {"seed", seed}};
  nlohmann::json b = {
      {"name", name + "_b"}, {"shape", {k}}, {"init", "he_normal"}, {"seed", seed + 1}};
  return {{conv, relu}, {w, b}};
}

/// A JSON model x [shape `x`] -> `convs` in order -> `output`.
std::string netOf(const std::string &name, const std::vector<int64_t> &x,
                  const std::vector<ConvNode> &convs, const std::string &output) {
  nlohmann::json nodes = nlohmann::json::array(), inits = nlohmann::json::array();
  for (const ConvNode &c : convs) {
    nodes.insert(nodes.end(), c.nodes.begin(), c.nodes.end());
    inits.insert(inits.end(), c.initializers.begin(), c.initializers.end());
  }
  nlohmann::json model = {{"name", name},
                          {"inputs", {{{"name", "x"}, {"shape", x}}}},
                          {"outputs", {output}},
                          {"nodes", nodes},
                          {"initializers", inits}};
  return model.dump(2);
}

/// x [1, c, h, w] -> 1x1 Conv of stride 2 to k channels -> Relu: path of its model file.
std::string stridedPointwiseNet(const std::string &name, int64_t c, int64_t h, int64_t w,
                                int64_t k) {
  return test::writeModel(
             name, netOf(name, {1, c, h, w}, {convNode("conv", "x", c, k, 1, 2, 3)}, "conv_relu"))
      .string();
}

bool hasStep(const compiler::KernelSchedule &trace, const std::string &primitive) {
  return std::any_of(trace.steps.begin(), trace.steps.end(),
                     [&](const compiler::ScheduleStep &s) { return s.primitive == primitive; });
}

/// The model at `path` through the passes, with 8-lane vectors (AVX2).
compiler::PolyhedralModel lowered(const std::string &path) {
  return compiler::lowerToPolyhedral(ir::loadModel(path), {}, codegen::VectorUnit{8, 16});
}

} // namespace

TEST_CASE("subsample_input copies the points a strided 1x1 conv reads into a compact buffer "
          "that the conv reads at unit stride",
          "[subsample-input]") {
  ir::Program program = ir::lowerGraph(ir::loadModel(stridedPointwiseNet("pw_s2", 2, 5, 6, 3)));
  const size_t buffers = program.buffers.size();
  compiler::subsampleInput(program, 0, "S1");
  REQUIRE(program.buffers.size() == buffers + 1);
  CHECK(program.buffers.back().kind == ir::BufferKind::Temp);
  // Output rows (5 - 1) / 2 + 1 = 3, columns (6 - 1) / 2 + 1 = 3: the buffer is 1x2x3x3.
  CHECK(program.buffers.back().shape == ir::Shape{1, 2, 3, 3});
  CHECK(program.calls[0].kernel.toString() == R"(kernel conv
  tensor x : 1x2x5x6
  tensor conv_w : 3x2x1x1
  tensor conv_b : 3
  tensor conv_relu : 1x3x3x3
  tensor x_subsampled : 1x2x3x3
  P3[d0 < 1, d1 < 2, d2 < 3, d3 < 3]
    x_subsampled[d0, d1, d2, d3] = x[d0, d1, 2*d2, 2*d3]
  S0[n < 1, k < 3, oh < 3, ow < 3]
    conv_relu[n, k, oh, ow] = conv_b[k]
  S1[n < 1, k < 3, oh < 3, ow < 3, c* < 2, r* < 1, s* < 1]
    conv_relu[n, k, oh, ow] += (x_subsampled[n, c, oh, ow] * conv_w[k, c, r, s])
  S2[n < 1, k < 3, oh < 3, ow < 3]
    conv_relu[n, k, oh, ow] = max(conv_relu[n, k, oh, ow], 0)
)");
}

TEST_CASE("subsample_input refuses statements that are not strided windowless convolutions",
          "[subsample-input]") {
  ir::Program program = ir::lowerGraph(ir::loadModel(stridedPointwiseNet("pw_s2", 2, 5, 6, 3)));
  CHECK_THROWS_AS(compiler::subsampleInput(program, 0, "S9"), compiler::UnknownStatement);
  CHECK_THROWS_WITH(compiler::subsampleInput(program, 0, "S0"),
                    Catch::Contains("is not a strided windowless convolution: it is not an Add"));
  compiler::subsampleInput(program, 0, "S1");
  CHECK_THROWS_WITH(compiler::subsampleInput(program, 0, "S1"),
                    Catch::Contains("no index of its first load is stride · iterator"));
  CHECK_THROWS_AS(compiler::subsampleInput(program, 0, "S1"), compiler::NotSubsampled);

  // A 3x3 window of stride 2: its rows are 2·oh + r − 1 with r of 3 values, and padded.
  const std::string windowed =
      test::writeModel("win_s2", netOf("win_s2", {1, 2, 7, 7},
                                       {convNode("conv", "x", 2, 3, 3, 2, 3)}, "conv_relu"))
          .string();
  ir::Program strided = ir::lowerGraph(ir::loadModel(windowed));
  CHECK_THROWS_WITH(compiler::subsampleInput(strided, 0, "S1"),
                    Catch::Contains("its domain is not a box (apply pad_input first)"));
  compiler::padInput(strided, 0, "S1");
  CHECK_THROWS_WITH(compiler::subsampleInput(strided, 0, "S1"),
                    Catch::Contains("no index of its first load is stride · iterator"));
}

TEST_CASE("the default trace subsamples a strided 1x1 conv's input before blocking its channels",
          "[subsample-input]") {
  const std::string path = stridedPointwiseNet("pw_s2_blocked", 16, 9, 10, 32);
  compiler::PolyhedralModel model = lowered(path);
  const std::vector<compiler::ScheduleStep> &trace = model.kernels.at(0).trace.steps;
  REQUIRE(trace.size() >= 2);
  CHECK(trace[0].primitive == "subsample_input");
  CHECK(trace[1].primitive == "block_channels");
  // The conv reads a 1x2x5x5x8 buffer: 16 channels in 2 blocks of 8, rows (9 - 1) / 2 + 1 = 5,
  // columns (10 - 1) / 2 + 1 = 5.
  CHECK_THAT(model.program.calls[0].kernel.toString(),
             Catch::Contains("tensor x_subsampled_nChw8c : 1x2x5x5x8"));
  CHECK(test::referenceError(std::move(model), path, 1) <= 1e-5);
  CHECK(test::referenceError(lowered(path), path, 2, 7) <= 1e-5);
}

TEST_CASE("a strided 1x1 conv after a blocked conv subsamples the forwarded blocked activations",
          "[subsample-input]") {
  const std::string path =
      test::writeModel("conv_then_pw_s2", netOf("conv_then_pw_s2", {1, 16, 8, 8},
                                                {convNode("conv1", "x", 16, 16, 3, 1, 3),
                                                 convNode("proj", "conv1_relu", 16, 32, 1, 2, 5)},
                                                "proj_relu"))
          .string();
  compiler::PolyhedralModel model = lowered(path);
  REQUIRE(model.kernels.size() == 2);
  CHECK(hasStep(model.kernels[1].trace, "subsample_input"));
  // conv1's copy-out to NCHW is gone: the copy reads its blocked output at rows and columns
  // 2·d2 and 2·d3, channels in blocks of 8.
  const std::string proj = model.program.calls[1].kernel.toString();
  CHECK_THAT(proj, !Catch::Contains("tensor conv1_relu :"));
  CHECK_THAT(proj, Catch::Contains("tensor conv1_relu_subsampled_nChw8c : 1x2x4x4x8"));
  CHECK_THAT(proj, Catch::Contains("[d0, d1_0, 2*d2, 2*d3, d1_1]"));
  CHECK(test::referenceError(std::move(model), path, 1) <= 1e-5);
  CHECK(test::referenceError(lowered(path), path, 2, 7) <= 1e-5);
}
