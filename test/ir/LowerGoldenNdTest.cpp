// Golden Kernel::toString() listings and reciprocal-count tables of 1-d and 3-d window ops. Each
// expected text was derived by hand from the ONNX formulas (window index o·stride + k·dilation −
// pad_begin, output size floor or ceil((in + pads − ((k−1)·dilation + 1)) / stride) + 1, bounds
// only where the box can leave the input), not copied from the lowering's output.
#include "LowerGraphs.h"
#include "LowerInterpreter.h"
#include "ir/Error.h"
#include "ir/lower/Lower.h"

#include <catch2/catch.hpp>

namespace {

using nasc::ir::Graph;
using nasc::ir::Program;
using nasc::lowertest::addInitializer;
using nasc::lowertest::oneNodeGraph;
using Ints = std::vector<int64_t>;

/// Lowers `g`, which must give one kernel with in-bounds accesses, and returns the program.
Program lowerOne(const Graph &g) {
  Program p = nasc::ir::lowerGraph(g);
  REQUIRE(p.calls.size() == 1);
  CHECK(nasc::lowertest::outOfBoundsAccesses(p.calls[0].kernel).empty());
  return p;
}

/// The data of the AveragePool kernel's reciprocal-count table (its second argument).
std::vector<float> reciprocalCounts(const Program &p) {
  return p.buffers.at(static_cast<size_t>(p.calls.at(0).args.at(1))).data.f;
}

} // namespace

TEST_CASE("1-d grouped Conv with stride, dilation and asymmetric pads bounds only the left side") {
  // X 1x2x7, W 4x1x3, group 2, stride 2, dilation 2, pads [2, 1]:
  // OW = (7 + 3 − 5) / 2 + 1 = 3; index 2·ow + 2·s − 2 reaches −2 (bound) and 2·2 + 4 − 2 = 6
  // = 7 − 1 (no bound). k = 2·g + kg, c = 1·g + cg.
  Graph g = oneNodeGraph(
      "Conv", {1, 2, 7}, {1, 4, 3},
      {{"group", int64_t(2)}, {"strides", Ints{2}}, {"dilations", Ints{2}}, {"pads", Ints{2, 1}}},
      {"w"});
  addInitializer(g, "w", {4, 1, 3});
  CHECK(lowerOne(g).calls[0].kernel.toString() ==
        "kernel op\n"
        "  tensor x : 1x2x7\n"
        "  tensor w : 4x1x3\n"
        "  tensor y : 1x4x3\n"
        "  S0[n < 1, k < 4, ow < 3]\n"
        "    y[n, k, ow] = 0\n"
        "  S1[n < 1, g < 2, kg < 2, ow < 3, cg* < 1, s* < 3] : 2*ow + 2*s - 2 >= 0\n"
        "    y[n, 2*g + kg, ow] += (x[n, g + cg, 2*ow + 2*s - 2] * w[2*g + kg, cg, s])\n");
}

TEST_CASE("3-d MaxPool with ceil_mode iterates (od, oh, ow, q, r, s) and bounds each axis alone") {
  // X 1x1x3x4x5, kernel 2x2x2, strides [1, 2, 2], pads [0, 1, 0, 0, 1, 0], ceil_mode:
  // OD = 3 − 2 + 1 = 2 (od + q <= 2: no bound); OH = (4 + 2 − 2) / 2 + 1 = 3 (2·oh + r − 1
  // from −1 to 4 > 3: both bounds); OW = ceil((5 − 2) / 2) + 1 = 3 (2·ow + s up to 5 > 4).
  Graph g = oneNodeGraph("MaxPool", {1, 1, 3, 4, 5}, {1, 1, 2, 3, 3},
                         {{"kernel_shape", Ints{2, 2, 2}},
                          {"strides", Ints{1, 2, 2}},
                          {"pads", Ints{0, 1, 0, 0, 1, 0}},
                          {"ceil_mode", int64_t(1)}});
  CHECK(lowerOne(g).calls[0].kernel.toString() ==
        "kernel op\n"
        "  tensor x : 1x1x3x4x5\n"
        "  tensor y : 1x1x2x3x3\n"
        "  S0[n < 1, c < 1, od < 2, oh < 3, ow < 3]\n"
        "    y[n, c, od, oh, ow] = -inf\n"
        "  S1[n < 1, c < 1, od < 2, oh < 3, ow < 3, q* < 2, r* < 2, s* < 2]"
        " : 2*oh + r - 1 >= 0 : -2*oh - r + 4 >= 0 : -2*ow - s + 4 >= 0\n"
        "    y[n, c, od, oh, ow] max= x[n, c, od + q, 2*oh + r - 1, 2*ow + s]\n");
}

TEST_CASE("1-d AveragePool counts pad positions only with count_include_pad, never the overhang") {
  // X 1x1x5, kernel 3, stride 2, pads [2, 1], ceil: OW = ceil((5 + 3 − 3) / 2) + 1 = 4, windows
  // from −2, 0, 2, 4. In the input [0, 4]: 1, 3, 3, 1 positions; in the padded input [−2, 5]:
  // 3, 3, 3, 2 (the last window's position 6 is overhang).
  std::map<std::string, nasc::ir::Attribute> attributes{{"kernel_shape", Ints{3}},
                                                        {"strides", Ints{2}},
                                                        {"pads", Ints{2, 1}},
                                                        {"ceil_mode", int64_t(1)}};
  Program excluded = lowerOne(oneNodeGraph("AveragePool", {1, 1, 5}, {1, 1, 4}, attributes));
  CHECK(excluded.calls[0].kernel.toString() ==
        "kernel op\n"
        "  tensor x : 1x1x5\n"
        "  tensor y_rcp_count : 4\n"
        "  tensor y : 1x1x4\n"
        "  S0[n < 1, c < 1, ow < 4]\n"
        "    y[n, c, ow] = 0\n"
        "  S1[n < 1, c < 1, ow < 4, s* < 3] : 2*ow + s - 2 >= 0 : -2*ow - s + 6 >= 0\n"
        "    y[n, c, ow] += x[n, c, 2*ow + s - 2]\n"
        "  S2[n < 1, c < 1, ow < 4]\n"
        "    y[n, c, ow] = (y[n, c, ow] * y_rcp_count[ow])\n");
  CHECK(reciprocalCounts(excluded) == std::vector<float>{1.0f, 1.0f / 3, 1.0f / 3, 1.0f});
  attributes["count_include_pad"] = int64_t(1);
  Program included = lowerOne(oneNodeGraph("AveragePool", {1, 1, 5}, {1, 1, 4}, attributes));
  CHECK(reciprocalCounts(included) == std::vector<float>{1.0f / 3, 1.0f / 3, 1.0f / 3, 0.5f});
}

TEST_CASE("3-d AveragePool's count table is the row-major product of the per-axis counts") {
  // X 1x1x2x3x5, kernel 2x2x2, strides [1, 1, 2], pads [0, 1, 0, 0, 0, 0], ceil: per-axis
  // in-input counts D: {2}, H (windows from −1, 0, 1): {1, 2, 2}, W (from 0, 2, 4): {2, 2, 1}.
  Graph g = oneNodeGraph("AveragePool", {1, 1, 2, 3, 5}, {1, 1, 1, 3, 3},
                         {{"kernel_shape", Ints{2, 2, 2}},
                          {"strides", Ints{1, 1, 2}},
                          {"pads", Ints{0, 1, 0, 0, 0, 0}},
                          {"ceil_mode", int64_t(1)}});
  Program p = lowerOne(g);
  CHECK(p.buffers.at(static_cast<size_t>(p.calls[0].args[1])).shape == nasc::ir::Shape{1, 3, 3});
  CHECK(reciprocalCounts(p) ==
        std::vector<float>{0.25f, 0.25f, 0.5f, 0.125f, 0.125f, 0.25f, 0.125f, 0.125f, 0.25f});
}

TEST_CASE("Conv whose W has another rank than X is rejected naming the node") {
  Graph g = oneNodeGraph("Conv", {1, 2, 7}, {1, 4, 5}, {}, {"w"});
  addInitializer(g, "w", {4, 2, 3, 1});
  CHECK_THROWS_WITH(nasc::ir::lowerGraph(g),
                    Catch::Contains("node 'op' (Conv)") && Catch::Contains("must be N×C×D1×..."));
}
