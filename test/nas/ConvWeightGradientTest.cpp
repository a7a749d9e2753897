// dL/dW of Conv weights (runtime::runTrainingStep with weightGradients) against central finite
// differences of the loss, on a grouped, strided, padded convolution with a bias.
#include "ir/ops/reference/OpSupport.h"
#include "runtime/reference/Training.h"
#include "test/support/RandomTensor.h"

#include <catch2/catch.hpp>

#include <cmath>

namespace {

using namespace nasc;

/// x (2,4,5,5) -> Conv(group 2, stride 2, pads 1, W (4,2,3,3), B) -> Relu -> Conv 1x1 (shared
/// weight "w2" used twice through an Add) -> GlobalAveragePool
/// -> Flatten -> logits (2,4).
ir::Graph groupedNetwork() {
  ir::Graph g;
  g.source = "grouped";
  g.inputs = {"x"};
  g.outputs = {"logits"};
  g.values["x"] = {ir::DType::Float32, {2, 4, 5, 5}};
  g.initializers["w1"] = test::uniformTensor({4, 2, 3, 3}, 11, 0.6f);
  g.initializers["b1"] = test::uniformTensor({4}, 12, 0.2f);
  g.initializers["w2"] = test::uniformTensor({4, 4, 1, 1}, 13, 0.8f);
  using Ints = std::vector<int64_t>;
  g.nodes = {
      {"conv1",
       "Conv",
       {"x", "w1", "b1"},
       {"c"},
       {{"group", int64_t{2}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}},
      {"relu", "Relu", {"c"}, {"r"}, {}},
      {"conv2", "Conv", {"r", "w2"}, {"d"}, {}},
      {"conv3", "Conv", {"d", "w2"}, {"e"}, {}},
      {"add", "Add", {"d", "e"}, {"s"}, {}},
      {"gap", "GlobalAveragePool", {"s"}, {"q"}, {}},
      {"flat", "Flatten", {"q"}, {"logits"}, {}},
  };
  return g;
}

} // namespace

TEST_CASE("Conv weight gradients match finite differences (groups, stride, "
          "pads, shared weight)",
          "[nas][training]") {
  ir::Graph graph = groupedNetwork();
  const std::map<std::string, ir::Tensor> inputs{
      {"x", test::uniformTensor({2, 4, 5, 5}, 14, 1.0f)}};
  const std::vector<int64_t> labels{1, 3};
  const runtime::TrainingStep step = runtime::runTrainingStep(graph, inputs, labels, true);
  REQUIRE(step.weightGradients.size() == 2);
  CHECK(runtime::runTrainingStep(graph, inputs, labels).weightGradients.empty());
  const float h = 1e-2f;
  for (const std::string name : {"w1", "w2"}) {
    const ir::Tensor &analytic = step.weightGradients.at(name);
    REQUIRE(analytic.shape == graph.initializers.at(name).shape);
    double scale = 0;
    for (float g : analytic.f)
      scale = std::max(scale, std::fabs(static_cast<double>(g)));
    REQUIRE(scale > 1e-3);
    for (size_t i = 0; i < analytic.f.size(); ++i) {
      float &w = graph.initializers.at(name).f[i];
      const float saved = w;
      w = saved + h;
      const double up = runtime::runTrainingStep(graph, inputs, labels).loss;
      w = saved - h;
      const double down = runtime::runTrainingStep(graph, inputs, labels).loss;
      w = saved;
      INFO(name << "[" << i << "]");
      CHECK(analytic.f[i] == Approx((up - down) / (2.0 * h)).margin(2e-3 * scale));
    }
  }
}
