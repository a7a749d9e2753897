// BatchNormalization folding checked numerically: a direct convolution written here (plain
// loops) computes Conv followed by BN (ONNX inference formula) and the folded Conv.
#include "ir/passes/FoldBatchNorm.h"
#include "ir/passes/ShapeInference.h"

#include <catch2/catch.hpp>

#include <cmath>

using nasc::ir::Graph;
using nasc::ir::Node;
using nasc::ir::Tensor;

namespace {

Tensor filled(const nasc::ir::Shape &shape, float start, float step) {
  Tensor t = Tensor::zeros(shape);
  for (size_t k = 0; k < t.f.size(); ++k)
    t.f[k] = start + step * static_cast<float>((k * 7) % 11);
  return t;
}

/// Direct NCHW convolution, stride 1, pad 1, N = 1: out[k][y][x] = b[k] + sum W * x.
std::vector<double> directConv(const Tensor &x, const Tensor &w, const std::vector<double> &b) {
  const int64_t c = x.shape[1], h = x.shape[2], wd = x.shape[3], k = w.shape[0], r = w.shape[2];
  std::vector<double> out(static_cast<size_t>(k * h * wd));
  for (int64_t ko = 0; ko < k; ++ko)
    for (int64_t oy = 0; oy < h; ++oy)
      for (int64_t ox = 0; ox < wd; ++ox) {
        double sum = b[ko];
        for (int64_t ci = 0; ci < c; ++ci)
          for (int64_t ry = 0; ry < r; ++ry)
            for (int64_t rx = 0; rx < r; ++rx) {
              const int64_t iy = oy + ry - 1, ix = ox + rx - 1;
              if (iy >= 0 && iy < h && ix >= 0 && ix < wd)
                sum += x.f[(ci * h + iy) * wd + ix] * w.f[((ko * c + ci) * r + ry) * r + rx];
            }
        out[(ko * h + oy) * wd + ox] = sum;
      }
  return out;
}

/// x 1x2x3x3 -> Conv(W 3x2x3x3, pad 1, optional bias) -> "c" -> BN(epsilon 1e-3) -> "y".
Graph convBn(bool withBias) {
  Graph g;
  g.source = "test";
  g.inputs = {"x"};
  g.outputs = {"y"};
  g.values["x"] = {nasc::ir::DType::Float32, {1, 2, 3, 3}};
  g.initializers["W"] = filled({3, 2, 3, 3}, -0.5f, 0.1f);
  g.initializers["scale"] = filled({3}, 0.5f, 0.3f);
  g.initializers["beta"] = filled({3}, -1.0f, 0.4f);
  g.initializers["mean"] = filled({3}, 0.2f, -0.2f);
  g.initializers["var"] = filled({3}, 0.3f, 0.25f);
  Node conv{"conv", "Conv", {"x", "W"}, {"c"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}};
  if (withBias) {
    g.initializers["B"] = filled({3}, 0.7f, -0.35f);
    conv.inputs.push_back("B");
  }
  g.nodes.push_back(conv);
  g.nodes.push_back(Node{"bn",
                         "BatchNormalization",
                         {"c", "scale", "beta", "mean", "var"},
                         {"y"},
                         {{"epsilon", 1e-3f}}});
  for (const auto &[name, t] : g.initializers)
    g.values[name] = {t.dtype, t.shape};
  nasc::ir::inferShapes(g);
  return g;
}

/// ONNX inference BN applied to the unfolded conv's output.
std::vector<double> convThenBn(const Graph &g, const Tensor &x) {
  std::vector<double> bias(3, 0.0);
  if (g.isInitializer("B"))
    for (size_t k = 0; k < 3; ++k)
      bias[k] = g.initializers.at("B").f[k];
  std::vector<double> y = directConv(x, g.initializers.at("W"), bias);
  const auto &in = g.initializers;
  for (size_t i = 0; i < y.size(); ++i) {
    const size_t k = i / 9;
    y[i] = in.at("scale").f[k] * (y[i] - in.at("mean").f[k]) /
               std::sqrt(static_cast<double>(in.at("var").f[k]) + 1e-3) +
           in.at("beta").f[k];
  }
  return y;
}

void checkFoldedMatches(bool withBias) {
  Graph g = convBn(withBias);
  Tensor x = filled({1, 2, 3, 3}, -1.0f, 0.25f);
  std::vector<double> expected = convThenBn(g, x);
  nasc::ir::foldBatchNorm(g);
  REQUIRE(g.nodes.size() == 1);
  const Node &conv = g.nodes[0];
  REQUIRE(conv.op_type == "Conv");
  CHECK(conv.outputs[0] == "y");
  REQUIRE(conv.inputs.size() == 3);
  const Tensor &b = g.initializers.at(conv.inputs[2]);
  std::vector<double> folded =
      directConv(x, g.initializers.at(conv.inputs[1]), std::vector<double>(b.f.begin(), b.f.end()));
  for (size_t i = 0; i < expected.size(); ++i)
    CHECK(folded[i] == Approx(expected[i]).epsilon(1e-5).margin(1e-5));
  CHECK_FALSE(g.isInitializer("scale"));
  CHECK(g.shapeOf("y") == nasc::ir::Shape{1, 3, 3, 3});
}

} // namespace

TEST_CASE("folding BN into a conv without bias computes the same as conv then BN") {
  checkFoldedMatches(false);
}

TEST_CASE("folding BN into a conv with bias computes the same as conv then BN") {
  checkFoldedMatches(true);
}

TEST_CASE("BN stays when the conv output has another reader or is a graph output") {
  Graph g = convBn(false);
  g.nodes.push_back(Node{"relu", "Relu", {"c"}, {"r"}, {}});
  g.outputs.push_back("r");
  nasc::ir::foldBatchNorm(g);
  CHECK(g.nodes.size() == 3);
  Graph h = convBn(false);
  h.outputs.push_back("c");
  nasc::ir::foldBatchNorm(h);
  CHECK(h.nodes.size() == 2);
}

TEST_CASE("BN stays when its statistics are not initializers") {
  Graph g = convBn(false);
  g.inputs.push_back("mean");
  g.initializers.erase("mean");
  nasc::ir::foldBatchNorm(g);
  CHECK(g.nodes.size() == 2);
}
