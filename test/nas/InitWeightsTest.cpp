// Seeded He re-initialisation: statistics per role, determinism, untouched non-weights.
#include "compiler/nas/InitWeights.h"

#include <catch2/catch.hpp>

#include <cmath>

namespace {

using namespace nasc;

double standardDeviation(const std::vector<float> &values) {
  double sum = 0, squares = 0;
  for (float v : values) {
    sum += v;
    squares += static_cast<double>(v) * v;
  }
  const double mean = sum / static_cast<double>(values.size());
  return std::sqrt(squares / static_cast<double>(values.size()) - mean * mean);
}

ir::Graph convGemmGraph() {
  ir::Graph g;
  g.source = "init";
  g.inputs = {"x"};
  g.outputs = {"y"};
  g.initializers["w"] = ir::Tensor::zeros({64, 32, 3, 3}, 7.0f);
  g.initializers["wb"] = ir::Tensor::zeros({64}, 7.0f);
  for (const char *name : {"s", "b", "m", "v"})
    g.initializers[name] = ir::Tensor::zeros({64}, 7.0f);
  g.initializers["fc"] = ir::Tensor::zeros({100, 800}, 7.0f);
  g.initializers["fcb"] = ir::Tensor::zeros({100}, 7.0f);
  g.initializers["shape"] = ir::Tensor::zeros({2}, 7.0f);
  g.nodes = {
      {"conv", "Conv", {"x", "w", "wb"}, {"c"}, {}},
      {"bn", "BatchNormalization", {"c", "s", "b", "m", "v"}, {"n"}, {}},
      {"reshape", "Reshape", {"n", "shape"}, {"f"}, {}},
      {"fc", "Gemm", {"f", "fc", "fcb"}, {"y"}, {{"transB", int64_t{1}}}},
  };
  return g;
}

} // namespace

TEST_CASE("initWeights draws He-normal weights by role and resets biases and BN", "[nas][init]") {
  ir::Graph graph = convGemmGraph();
  nas::initWeights(graph, 42);
  // Conv fan_out = 64 * 3 * 3 = 576 (PyTorch kaiming_normal_ mode='fan_out'); 18432 samples.
  CHECK(standardDeviation(graph.initializers.at("w").f) ==
        Approx(std::sqrt(2.0 / 576)).epsilon(0.03));
  // Gemm with transB: B is (out, in), fan_in = 800; 80000 samples.
  CHECK(standardDeviation(graph.initializers.at("fc").f) ==
        Approx(std::sqrt(2.0 / 800)).epsilon(0.02));
  CHECK(graph.initializers.at("wb").f == std::vector<float>(64, 0.0f));
  CHECK(graph.initializers.at("fcb").f == std::vector<float>(100, 0.0f));
  CHECK(graph.initializers.at("s").f == std::vector<float>(64, 1.0f));
  CHECK(graph.initializers.at("b").f == std::vector<float>(64, 0.0f));
  CHECK(graph.initializers.at("m").f == std::vector<float>(64, 0.0f));
  CHECK(graph.initializers.at("v").f == std::vector<float>(64, 1.0f));
  CHECK(graph.initializers.at("shape").f == std::vector<float>(2, 7.0f));
}

TEST_CASE("initWeights depends only on the seed", "[nas][init]") {
  ir::Graph a = convGemmGraph(), b = convGemmGraph(), c = convGemmGraph();
  nas::initWeights(a, 1);
  nas::initWeights(b, 1);
  nas::initWeights(c, 2);
  CHECK(a.initializers.at("w").f == b.initializers.at("w").f);
  CHECK(a.initializers.at("fc").f == b.initializers.at("fc").f);
  CHECK(a.initializers.at("w").f != c.initializers.at("w").f);
  CHECK(a.initializers.at("w").f != std::vector<float>(a.initializers.at("w").f.size(), 7.0f));
}
