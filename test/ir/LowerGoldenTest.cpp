// Golden Kernel::toString() listings of lowered ops. Each expected text was derived by hand
// from the ONNX formulas (window index oh·sh + r·dh − pt, output size
// floor((H + pt + pb − ((R−1)·dh + 1)) / sh) + 1, bounds only where the box can leave the
// input), not copied from the lowering's output; every access is also checked in bounds.
#include "LowerGraphs.h"
#include "LowerInterpreter.h"
#include "ir/lower/Lower.h"

#include <catch2/catch.hpp>

namespace {

using nasc::ir::Graph;
using nasc::ir::Program;
using nasc::lowertest::addInitializer;
using nasc::lowertest::addNode;
using nasc::lowertest::addValue;
using nasc::lowertest::oneNodeGraph;
using Ints = std::vector<int64_t>;

/// Lowers `g`, which must give one kernel, checks its accesses and returns its listing.
std::string onlyKernel(const Graph &g) {
  Program p = nasc::ir::lowerGraph(g);
  REQUIRE(p.calls.size() == 1);
  CHECK(nasc::lowertest::outOfBoundsAccesses(p.calls[0].kernel).empty());
  return p.calls[0].kernel.toString();
}

} // namespace

TEST_CASE("padded strided Conv: bias init, reduction restricted to the unpadded input") {
  // X 1x2x5x5, W 3x2x3x3, strides 2, pads 1: OH = (5 + 2 - 3) / 2 + 1 = 3. The row index
  // 2·oh + r − 1 reaches −1 (pad 1 at the top) and 2·2 + 2 − 1 = 5 > 4 (bottom).
  Graph g = oneNodeGraph("Conv", {1, 2, 5, 5}, {1, 3, 3, 3},
                         {{"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}, {"w", "b"});
  addInitializer(g, "w", {3, 2, 3, 3});
  addInitializer(g, "b", {3});
  CHECK(onlyKernel(g) == "kernel op\n"
                         "  tensor x : 1x2x5x5\n"
                         "  tensor w : 3x2x3x3\n"
                         "  tensor b : 3\n"
                         "  tensor y : 1x3x3x3\n"
                         "  S0[n < 1, k < 3, oh < 3, ow < 3]\n"
                         "    y[n, k, oh, ow] = b[k]\n"
                         "  S1[n < 1, k < 3, oh < 3, ow < 3, c* < 2, r* < 3, s* < 3]"
                         " : 2*oh + r - 1 >= 0 : -2*oh - r + 5 >= 0"
                         " : 2*ow + s - 1 >= 0 : -2*ow - s + 5 >= 0\n"
                         "    y[n, k, oh, ow] += (x[n, c, 2*oh + r - 1, 2*ow + s - 1]"
                         " * w[k, c, r, s])\n");
}

TEST_CASE("asymmetric pads bound only the sides that need it") {
  // pads [top 1, left 0, bottom 0, right 2], 3x3 kernel on 4x4, stride 1:
  // OH = 4 + 1 - 3 + 1 = 3 (rows reach -1 and 2 + 2 - 1 = 3: top bound only),
  // OW = 4 + 2 - 3 + 1 = 4 (columns reach 0 and 3 + 2 = 5 > 3: right bound only).
  Graph g = oneNodeGraph("Conv", {1, 1, 4, 4}, {1, 1, 3, 4}, {{"pads", Ints{1, 0, 0, 2}}}, {"w"});
  addInitializer(g, "w", {1, 1, 3, 3});
  CHECK(onlyKernel(g) == "kernel op\n"
                         "  tensor x : 1x1x4x4\n"
                         "  tensor w : 1x1x3x3\n"
                         "  tensor y : 1x1x3x4\n"
                         "  S0[n < 1, k < 1, oh < 3, ow < 4]\n"
                         "    y[n, k, oh, ow] = 0\n"
                         "  S1[n < 1, k < 1, oh < 3, ow < 4, c* < 1, r* < 3, s* < 3]"
                         " : oh + r - 1 >= 0 : -ow - s + 3 >= 0\n"
                         "    y[n, k, oh, ow] += (x[n, c, oh + r - 1, ow + s] * w[k, c, r, s])\n");
}

TEST_CASE("grouped Conv iterates (n, g, kg, oh, ow, cg, r, s) with affine channel indices") {
  // K = 6, C = 4, G = 2: k = 3·g + kg, c = 2·g + cg, W[k, cg, r, s]; OH = 4 - 3 + 1 = 2.
  Graph g = oneNodeGraph("Conv", {1, 4, 4, 4}, {1, 6, 2, 2}, {{"group", int64_t(2)}}, {"w"});
  addInitializer(g, "w", {6, 2, 3, 3});
  CHECK(onlyKernel(g) == "kernel op\n"
                         "  tensor x : 1x4x4x4\n"
                         "  tensor w : 6x2x3x3\n"
                         "  tensor y : 1x6x2x2\n"
                         "  S0[n < 1, k < 6, oh < 2, ow < 2]\n"
                         "    y[n, k, oh, ow] = 0\n"
                         "  S1[n < 1, g < 2, kg < 3, oh < 2, ow < 2, cg* < 2, r* < 3, s* < 3]\n"
                         "    y[n, 3*g + kg, oh, ow] += (x[n, 2*g + cg, oh + r, ow + s]"
                         " * w[3*g + kg, cg, r, s])\n");
}

TEST_CASE("Conv + residual Add + Relu become one kernel writing the Relu's output") {
  Graph g;
  g.source = "<test>";
  g.inputs = {"x"};
  g.outputs = {"y"};
  for (const char *v : {"x", "c", "s", "y"})
    addValue(g, v, {1, 2, 4, 4});
  addInitializer(g, "w", {2, 2, 3, 3});
  addNode(g, "conv", "Conv", {"x", "w"}, {"c"}, {{"pads", Ints{1, 1, 1, 1}}});
  addNode(g, "add", "Add", {"c", "x"}, {"s"});
  addNode(g, "relu", "Relu", {"s"}, {"y"});
  Program p = nasc::ir::lowerGraph(g);
  REQUIRE(p.calls.size() == 1);
  CHECK(p.calls[0].nodes == std::vector<std::string>{"conv", "add", "relu"});
  CHECK(p.buffers.size() == 3);
  CHECK(p.calls[0].kernel.toString() ==
        "kernel conv\n"
        "  tensor x : 1x2x4x4\n"
        "  tensor w : 2x2x3x3\n"
        "  tensor y : 1x2x4x4\n"
        "  S0[n < 1, k < 2, oh < 4, ow < 4]\n"
        "    y[n, k, oh, ow] = 0\n"
        "  S1[n < 1, k < 2, oh < 4, ow < 4, c* < 2, r* < 3, s* < 3]"
        " : oh + r - 1 >= 0 : -oh - r + 4 >= 0 : ow + s - 1 >= 0 : -ow - s + 4 >= 0\n"
        "    y[n, k, oh, ow] += (x[n, c, oh + r - 1, ow + s - 1] * w[k, c, r, s])\n"
        "  S2[n < 1, k < 2, oh < 4, ow < 4]\n"
        "    y[n, k, oh, ow] = (y[n, k, oh, ow] + x[n, k, oh, ow])\n"
        "  S3[n < 1, k < 2, oh < 4, ow < 4]\n"
        "    y[n, k, oh, ow] = max(y[n, k, oh, ow], 0)\n");
  CHECK(nasc::lowertest::outOfBoundsAccesses(p.calls[0].kernel).empty());
}

TEST_CASE("MaxPool: -inf init, max over the in-bounds window") {
  // 5x5, kernel 3, stride 2, pads 1: OH = (5 + 2 - 3) / 2 + 1 = 3, same bounds as the conv.
  Graph g = oneNodeGraph(
      "MaxPool", {1, 1, 5, 5}, {1, 1, 3, 3},
      {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}});
  CHECK(onlyKernel(g) == "kernel op\n"
                         "  tensor x : 1x1x5x5\n"
                         "  tensor y : 1x1x3x3\n"
                         "  S0[n < 1, c < 1, oh < 3, ow < 3]\n"
                         "    y[n, c, oh, ow] = -inf\n"
                         "  S1[n < 1, c < 1, oh < 3, ow < 3, r* < 3, s* < 3]"
                         " : 2*oh + r - 1 >= 0 : -2*oh - r + 5 >= 0"
                         " : 2*ow + s - 1 >= 0 : -2*ow - s + 5 >= 0\n"
                         "    y[n, c, oh, ow] max= x[n, c, 2*oh + r - 1, 2*ow + s - 1]\n");
}

TEST_CASE("AveragePool with ceil_mode: window sum times a table of reciprocal in-bounds counts") {
  // 5x5, kernel 2, stride 2, ceil: OH = ceil(3 / 2) + 1 = 3; the last window covers rows 4, 5
  // of which only row 4 exists, so counts per axis are 2, 2, 1.
  Graph g = oneNodeGraph(
      "AveragePool", {1, 1, 5, 5}, {1, 1, 3, 3},
      {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t(1)}});
  Program p = nasc::ir::lowerGraph(g);
  REQUIRE(p.calls.size() == 1);
  CHECK(p.calls[0].kernel.toString() ==
        "kernel op\n"
        "  tensor x : 1x1x5x5\n"
        "  tensor y_rcp_count : 3x3\n"
        "  tensor y : 1x1x3x3\n"
        "  S0[n < 1, c < 1, oh < 3, ow < 3]\n"
        "    y[n, c, oh, ow] = 0\n"
        "  S1[n < 1, c < 1, oh < 3, ow < 3, r* < 2, s* < 2]"
        " : -2*oh - r + 4 >= 0 : -2*ow - s + 4 >= 0\n"
        "    y[n, c, oh, ow] += x[n, c, 2*oh + r, 2*ow + s]\n"
        "  S2[n < 1, c < 1, oh < 3, ow < 3]\n"
        "    y[n, c, oh, ow] = (y[n, c, oh, ow] * y_rcp_count[oh, ow])\n");
  const auto &rcp = p.buffers.at(static_cast<size_t>(p.calls[0].args[1]));
  CHECK(rcp.kind == nasc::ir::BufferKind::Constant);
  CHECK(rcp.data.f == std::vector<float>{0.25f, 0.25f, 0.5f, 0.25f, 0.25f, 0.5f, 0.5f, 0.5f, 1.0f});
  CHECK(nasc::lowertest::outOfBoundsAccesses(p.calls[0].kernel).empty());
}

TEST_CASE("AveragePool count_include_pad counts pad positions but not the ceil overhang") {
  // 5x5, kernel 2, stride 2, pads [1, 1, 0, 0]: span = 5 + 1 - 2 = 4, OH = 4 / 2 + 1 = 3;
  // windows start at -1, 1, 3 and cover 2 padded-input positions each.
  // With pads [0, 0, 0, 0] and ceil, OH = 3 and the last window (rows 4, 5) has 1 position
  // inside the padded input, so it counts 1, not 2.
  Graph padded = oneNodeGraph("AveragePool", {1, 1, 5, 5}, {1, 1, 3, 3},
                              {{"kernel_shape", Ints{2, 2}},
                               {"strides", Ints{2, 2}},
                               {"pads", Ints{1, 1, 0, 0}},
                               {"count_include_pad", int64_t(1)}});
  Program p = nasc::ir::lowerGraph(padded);
  CHECK(p.buffers.at(static_cast<size_t>(p.calls.at(0).args[1])).data.f ==
        std::vector<float>(9, 0.25f));
  Graph overhang = oneNodeGraph("AveragePool", {1, 1, 5, 5}, {1, 1, 3, 3},
                                {{"kernel_shape", Ints{2, 2}},
                                 {"strides", Ints{2, 2}},
                                 {"ceil_mode", int64_t(1)},
                                 {"count_include_pad", int64_t(1)}});
  Program q = nasc::ir::lowerGraph(overhang);
  CHECK(q.buffers.at(static_cast<size_t>(q.calls.at(0).args[1])).data.f ==
        std::vector<float>{0.25f, 0.25f, 0.5f, 0.25f, 0.25f, 0.5f, 0.5f, 0.5f, 1.0f});
}

TEST_CASE("Gemm with transB, alpha, beta and a row-broadcast C") {
  // Y[i,j] = 0.5 · Σ_k A[i,k]·B[j,k] + 2·C[j]: C of shape [4] broadcasts over the rows.
  Graph g = oneNodeGraph("Gemm", {2, 3}, {2, 4},
                         {{"transB", int64_t(1)}, {"alpha", 0.5f}, {"beta", 2.0f}}, {"b", "c"});
  addInitializer(g, "b", {4, 3});
  addInitializer(g, "c", {4});
  // The constant B is stored transposed at compile time: b_T[k, j] = b[j, k].
  CHECK(onlyKernel(g) == "kernel op\n"
                         "  tensor x : 2x3\n"
                         "  tensor b_T : 3x4\n"
                         "  tensor c : 4\n"
                         "  tensor y : 2x4\n"
                         "  S0[i < 2, j < 4]\n"
                         "    y[i, j] = (2 * c[j])\n"
                         "  S1[i < 2, j < 4, k* < 3]\n"
                         "    y[i, j] += (0.5 * (x[i, k] * b_T[k, j]))\n");
  Program p = nasc::ir::lowerGraph(g);
  const std::vector<float> &b = g.initializers.at("b").f;
  const std::vector<float> &bT = p.buffers.at(static_cast<size_t>(p.calls.at(0).args[1])).data.f;
  REQUIRE(bT.size() == 12);
  for (size_t j = 0; j < 4; ++j)
    for (size_t k = 0; k < 3; ++k)
      CHECK(bT[k * 4 + j] == b[j * 3 + k]);
}

TEST_CASE("Gemm with transA and a column C broadcast by a zero coefficient") {
  // A' = Aᵀ: A[k, i]; C of shape [2, 1] is indexed C[i, 0].
  Graph g = oneNodeGraph("Gemm", {3, 2}, {2, 4}, {{"transA", int64_t(1)}}, {"b", "c"});
  addInitializer(g, "b", {3, 4});
  addInitializer(g, "c", {2, 1});
  CHECK(onlyKernel(g) == "kernel op\n"
                         "  tensor x : 3x2\n"
                         "  tensor b : 3x4\n"
                         "  tensor c : 2x1\n"
                         "  tensor y : 2x4\n"
                         "  S0[i < 2, j < 4]\n"
                         "    y[i, j] = c[i, 0]\n"
                         "  S1[i < 2, j < 4, k* < 3]\n"
                         "    y[i, j] += (x[k, i] * b[k, j])\n");
}

TEST_CASE("Concat writes each input at its offset along the (negative) axis") {
  Graph g = oneNodeGraph("Concat", {1, 2, 2}, {1, 5, 2}, {{"axis", int64_t(-2)}}, {"z"});
  addValue(g, "z", {1, 3, 2});
  g.inputs.push_back("z");
  CHECK(onlyKernel(g) == "kernel op\n"
                         "  tensor x : 1x2x2\n"
                         "  tensor z : 1x3x2\n"
                         "  tensor y : 1x5x2\n"
                         "  S0[i0 < 1, i1 < 2, i2 < 2]\n"
                         "    y[i0, i1, i2] = x[i0, i1, i2]\n"
                         "  S1[i0 < 1, i1 < 3, i2 < 2]\n"
                         "    y[i0, i1 + 2, i2] = z[i0, i1, i2]\n");
}

TEST_CASE("Flatten of NCHW iterates the input with output index c·H·W + h·W + w") {
  Graph g = oneNodeGraph("Flatten", {1, 2, 3, 4}, {1, 24});
  CHECK(onlyKernel(g) == "kernel op\n"
                         "  tensor x : 1x2x3x4\n"
                         "  tensor y : 1x24\n"
                         "  S0[n < 1, c < 2, h < 3, w < 4]\n"
                         "    y[n, 12*c + 4*h + w] = x[n, c, h, w]\n");
}

TEST_CASE("Flatten of NxCx1x1 keeps the unit dims as iterators with zero output weight") {
  Graph g = oneNodeGraph("Flatten", {2, 3, 1, 1}, {2, 3});
  CHECK(onlyKernel(g) == "kernel op\n"
                         "  tensor x : 2x3x1x1\n"
                         "  tensor y : 2x3\n"
                         "  S0[n < 2, c < 3, h < 1, w < 1]\n"
                         "    y[n, c] = x[n, c, h, w]\n");
}

TEST_CASE("Reshape that splits one dim iterates the output dims") {
  Graph g = oneNodeGraph("Reshape", {2, 6}, {2, 3, 2});
  CHECK(onlyKernel(g) == "kernel op\n"
                         "  tensor x : 2x6\n"
                         "  tensor y : 2x3x2\n"
                         "  S0[i0 < 2, o1 < 3, o2 < 2]\n"
                         "    y[i0, o1, o2] = x[i0, 2*o1 + o2]\n");
}

TEST_CASE("Reshape that regroups dims ties input and output iterators by an equality") {
  Graph g = oneNodeGraph("Reshape", {2, 3}, {3, 2});
  CHECK(onlyKernel(g) == "kernel op\n"
                         "  tensor x : 2x3\n"
                         "  tensor y : 3x2\n"
                         "  S0[i0 < 2, i1 < 3, o0 < 3, o1 < 2] : 3*i0 + i1 - 2*o0 - o1 == 0\n"
                         "    y[o0, o1] = x[i0, i1]\n");
}

namespace {

nasc::ir::Tensor int64s(const Ints &values) {
  return {nasc::ir::DType::Int64, {static_cast<int64_t>(values.size())}, {}, values};
}

nasc::ir::Tensor floats(const std::vector<float> &values) {
  return {nasc::ir::DType::Float32, {static_cast<int64_t>(values.size())}, values, {}};
}

} // namespace

TEST_CASE("Slice reads start + step·i, negative steps counting down from the clamped start") {
  // Rows: start 1, end 6, step 2 -> 1, 3, 5. Columns of 5: start -1 -> 4, end -100 clamped to
  // -1, step -2 -> 4, 2, 0.
  Graph g =
      oneNodeGraph("Slice", {1, 2, 6, 5}, {1, 2, 3, 3}, {}, {"starts", "ends", "axes", "steps"});
  g.initializers["starts"] = int64s({1, -1});
  g.initializers["ends"] = int64s({6, -100});
  g.initializers["axes"] = int64s({2, 3});
  g.initializers["steps"] = int64s({2, -2});
  CHECK(onlyKernel(g) == "kernel op\n"
                         "  tensor x : 1x2x6x5\n"
                         "  tensor y : 1x2x3x3\n"
                         "  S0[n < 1, c < 2, h < 3, w < 3]\n"
                         "    y[n, c, h, w] = x[n, c, 2*h + 1, -2*w + 4]\n");
}

TEST_CASE("Resize nearest x2 (asymmetric, floor) ties a source index s = floor(o / 2)") {
  // y[h] = x[floor(h / 2)] <=> 2·s2 <= h <= 2·s2 + 1; N and C keep scale 1 (index o).
  Graph g = oneNodeGraph("Resize", {1, 1, 2, 3}, {1, 1, 4, 6},
                         {{"mode", std::string("nearest")},
                          {"coordinate_transformation_mode", std::string("asymmetric")},
                          {"nearest_mode", std::string("floor")}},
                         {"", "scales"});
  g.initializers["scales"] = floats({1, 1, 2, 2});
  CHECK(onlyKernel(g) == "kernel op\n"
                         "  tensor x : 1x1x2x3\n"
                         "  tensor y : 1x1x4x6\n"
                         "  S0[n < 1, c < 1, h < 4, s2 < 2, w < 6, s3 < 3]"
                         " : h - 2*s2 >= 0 : -h + 2*s2 + 1 >= 0"
                         " : w - 2*s3 >= 0 : -w + 2*s3 + 1 >= 0\n"
                         "    y[n, c, h, w] = x[n, c, s2, s3]\n");
  const auto y = nasc::lowertest::runProgram(nasc::ir::lowerGraph(g), {{1, 2, 3, 4, 5, 6}});
  CHECK(y.at(0) ==
        std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6});
}

TEST_CASE("Resize nearest /2 (half_pixel, round_prefer_floor) reads x[2·o] directly") {
  // (o + 0.5) · 2 - 0.5 = 2·o + 0.5, rounded half down: 2·o; the map is affine.
  Graph g = oneNodeGraph("Resize", {1, 1, 4, 4}, {1, 1, 2, 2}, {}, {"", "scales"});
  g.initializers["scales"] = floats({1, 1, 0.5f, 0.5f});
  CHECK(onlyKernel(g) == "kernel op\n"
                         "  tensor x : 1x1x4x4\n"
                         "  tensor y : 1x1x2x2\n"
                         "  S0[n < 1, c < 1, h < 2, w < 2]\n"
                         "    y[n, c, h, w] = x[n, c, 2*h, 2*w]\n");
}

TEST_CASE("Resize whose source index needs clamping is refused naming the attribute") {
  // half_pixel + floor, x2: output 0 reads floor(-0.25) = -1, clamped to 0 by the spec.
  Graph g = oneNodeGraph("Resize", {1, 1, 2, 2}, {1, 1, 4, 4},
                         {{"nearest_mode", std::string("floor")}}, {"", "scales"});
  g.initializers["scales"] = floats({1, 1, 2, 2});
  REQUIRE_THROWS_WITH(nasc::ir::lowerGraph(g),
                      Catch::Contains("<test>") && Catch::Contains("node 'op' (Resize)") &&
                          Catch::Contains("'coordinate_transformation_mode'") &&
                          Catch::Contains("not supported"));
}
