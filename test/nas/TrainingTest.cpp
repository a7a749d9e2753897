// Training step of the reference executor: BN with batch statistics and the cross-entropy loss
// against hand-computed values, and a small residual network against finite differences.
#include "runtime/reference/Training.h"
#include "ir/Error.h"
#include "ir/ops/reference/Gradients.h"
#include "test/support/RandomTensor.h"

#include <catch2/catch.hpp>

#include <cmath>

namespace {

using namespace nasc;
using Catch::Matchers::Contains;

ir::Tensor tensorOf(const ir::Shape &shape, std::vector<float> data) {
  return ir::reference::floatTensor(shape, std::move(data));
}

/// x (2,2,4,4) -> Conv 3x3 -> BN -> Relu (r) -> Conv 1x1 -> Add(r, .) -> MaxPool 2 ->
/// GlobalAveragePool -> Flatten -> Gemm(transB) -> logits (2,4); r feeds two nodes.
ir::Graph residualNetwork() {
  ir::Graph g;
  g.source = "residual";
  g.inputs = {"x"};
  g.outputs = {"logits"};
  g.values["x"] = {ir::DType::Float32, {2, 2, 4, 4}};
  g.initializers["w1"] = test::uniformTensor({3, 2, 3, 3}, 1, 0.5f);
  g.initializers["gamma"] = tensorOf({3}, {1.2f, 0.8f, 1.0f});
  g.initializers["beta"] = tensorOf({3}, {0.1f, -0.2f, 0.3f});
  g.initializers["mean"] = tensorOf({3}, {0, 0, 0});
  g.initializers["var"] = tensorOf({3}, {1, 1, 1});
  g.initializers["w2"] = test::uniformTensor({3, 3, 1, 1}, 2, 0.8f);
  g.initializers["fc"] = test::uniformTensor({4, 3}, 3, 1.0f);
  g.initializers["fcb"] = test::uniformTensor({4}, 4, 0.1f);
  using Ints = std::vector<int64_t>;
  g.nodes = {
      {"conv1", "Conv", {"x", "w1"}, {"c"}, {{"pads", Ints{1, 1, 1, 1}}}},
      {"bn1", "BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, {"b"}, {}},
      {"relu1", "Relu", {"b"}, {"r"}, {}},
      {"conv2", "Conv", {"r", "w2"}, {"d"}, {}},
      {"add", "Add", {"r", "d"}, {"s"}, {}},
      {"pool", "MaxPool", {"s"}, {"p"}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}}},
      {"gap", "GlobalAveragePool", {"p"}, {"q"}, {}},
      {"flat", "Flatten", {"q"}, {"f"}, {}},
      {"fc", "Gemm", {"f", "fc", "fcb"}, {"logits"}, {{"transB", int64_t{1}}}},
  };
  return g;
}

} // namespace

TEST_CASE("Training-mode BatchNormalization matches a hand-computed case", "[nas][training]") {
  // X (N=2, C=2, 1, 2): channel 0 holds 1, 3 | 5, 7 (mean 4, biased var 5); channel 1 holds 0, 0 |
  // 2, 2 (mean 1, var 1). epsilon 0, scale (2, 1), B (0.5, 0).
  const ir::Node node{
      "bn", "BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}, {{"epsilon", 0.0f}}};
  const ir::Tensor x = tensorOf({2, 2, 1, 2}, {1, 3, 0, 0, 5, 7, 2, 2});
  const ir::Tensor scale = tensorOf({2}, {2, 1}), bias = tensorOf({2}, {0.5f, 0});
  const ir::Tensor mean = tensorOf({2}, {100, 100}), var = tensorOf({2}, {100, 100});
  const ir::reference::OpInputs inputs{&x, &scale, &bias, &mean, &var};
  const ir::Tensor y = ir::reference::batchNormalizationTraining(node, inputs)[0];
  const float r5 = std::sqrt(5.0f);
  const std::vector<float> expectedY{2 * -3 / r5 + 0.5f, 2 * -1 / r5 + 0.5f, -1, -1,
                                     2 * 1 / r5 + 0.5f,  2 * 3 / r5 + 0.5f,  1,  1};
  for (size_t i = 0; i < expectedY.size(); ++i)
    CHECK(y.f[i] == Approx(expectedY[i]).margin(1e-6));
  // dY = 1 at (n0, c0, 0, 0) only: dX_i = 2/sqrt5 (dY_i - 1/4 + 3 d_i / 20), d = X - 4; channel 1
  // gets no gradient.
  const ir::Tensor dy = tensorOf({2, 2, 1, 2}, {1, 0, 0, 0, 0, 0, 0, 0});
  const auto dx =
      ir::reference::batchNormalizationTrainingBackward({node, inputs, y, dy})[0].value();
  const std::vector<float> expectedDx{0.6f / r5, -0.8f / r5, 0, 0, -0.2f / r5, 0.4f / r5, 0, 0};
  for (size_t i = 0; i < expectedDx.size(); ++i)
    CHECK(dx.f[i] == Approx(expectedDx[i]).margin(1e-6));
}

TEST_CASE("Cross-entropy is PyTorch's mean reduction with softmax gradient", "[nas][training]") {
  // Row 0: logits 0, 0, 0, label 1 -> ln 3. Row 1: ln 2, 0, 0, label 0 -> softmax (1/2, 1/4, 1/4),
  // loss ln 2. Mean (ln 3 + ln 2) / 2; dlogits = (softmax - onehot) / 2.
  const ir::Tensor logits = tensorOf({2, 3}, {0, 0, 0, std::log(2.0f), 0, 0});
  ir::Tensor grad;
  const double loss = runtime::crossEntropy(logits, {1, 0}, grad);
  CHECK(loss == Approx((std::log(3.0) + std::log(2.0)) / 2).epsilon(1e-6));
  const std::vector<float> expected{1.0f / 6, -1.0f / 3, 1.0f / 6, -0.25f, 0.125f, 0.125f};
  for (size_t i = 0; i < expected.size(); ++i)
    CHECK(grad.f[i] == Approx(expected[i]).margin(1e-7));
  CHECK_THROWS_WITH(runtime::crossEntropy(logits, {1, 3}, grad), Contains("label 3"));
}

TEST_CASE("Input gradient of a residual network matches finite differences of "
          "the loss",
          "[nas][training]") {
  const ir::Graph graph = residualNetwork();
  ir::Tensor x = test::uniformTensor({2, 2, 4, 4}, 5, 1.0f);
  const std::vector<int64_t> labels{1, 3};
  const runtime::TrainingStep step = runtime::runTrainingStep(graph, {{"x", x}}, labels);
  REQUIRE(step.gradients.count("x"));
  REQUIRE(step.gradients.count("c"));
  const ir::Tensor &analytic = step.gradients.at("x");
  double scale = 0, worst = 0;
  for (float v : analytic.f)
    scale = std::max(scale, std::fabs(static_cast<double>(v)));
  REQUIRE(scale > 1e-3);
  const float h = 1e-3f;
  for (size_t i = 0; i < x.f.size(); ++i) {
    const float saved = x.f[i];
    x.f[i] = saved + h;
    const double plus = runtime::runTrainingStep(graph, {{"x", x}}, labels).loss;
    x.f[i] = saved - h;
    const double minus = runtime::runTrainingStep(graph, {{"x", x}}, labels).loss;
    x.f[i] = saved;
    worst = std::max(worst, std::fabs((plus - minus) / (2.0 * h) - analytic.f[i]));
  }
  INFO("max |fd - analytic| " << worst << ", max |analytic| " << scale);
  CHECK(worst <= 1e-2 * scale);
}

TEST_CASE("Training step names the node and op it does not support", "[nas][training]") {
  ir::Graph graph = residualNetwork();
  graph.nodes[2].op_type = "Sigmoid";
  CHECK_THROWS_WITH(
      runtime::runTrainingStep(graph, {{"x", ir::Tensor::zeros({2, 2, 4, 4})}}, {0, 1}),
      Contains("node 'relu1' (Sigmoid)") && Contains("not supported in training"));
}

TEST_CASE("MatMul weight gradients reach an initializer A or B; Sub, Mul, Div, Clip train",
          "[nas][training]") {
  // x (2,3) -> MatMul(a, x) -> Sub(., c (3)) -> Mul(., s (2,1)) -> Div(., d (3)) -> Clip(-5, 5)
  // -> MatMul(., w) -> logits (2,4); only the MatMul operands get weight gradients.
  ir::Graph g;
  g.source = "matmul";
  g.inputs = {"x"};
  g.outputs = {"logits"};
  g.values["x"] = {ir::DType::Float32, {2, 3}};
  g.initializers["a"] = test::uniformTensor({2, 2}, 41, 1.0f);
  g.initializers["c"] = test::uniformTensor({3}, 42, 0.5f);
  g.initializers["s"] = test::uniformTensor({2, 1}, 43, 1.0f);
  g.initializers["d"] = tensorOf({3}, {1.5f, 0.8f, 1.2f});
  g.initializers["lo"] = tensorOf({}, {-5.0f});
  g.initializers["hi"] = tensorOf({}, {5.0f});
  g.initializers["w"] = test::uniformTensor({3, 4}, 44, 1.0f);
  g.nodes = {
      {"m1", "MatMul", {"a", "x"}, {"p"}, {}},        {"sub", "Sub", {"p", "c"}, {"q"}, {}},
      {"mul", "Mul", {"q", "s"}, {"u"}, {}},          {"div", "Div", {"u", "d"}, {"v"}, {}},
      {"clip", "Clip", {"v", "lo", "hi"}, {"k"}, {}}, {"m2", "MatMul", {"k", "w"}, {"logits"}, {}},
  };
  ir::Tensor x = test::uniformTensor({2, 3}, 45, 1.0f);
  const std::vector<int64_t> labels{2, 0};
  const runtime::TrainingStep step = runtime::runTrainingStep(g, {{"x", x}}, labels, true);
  REQUIRE(step.weightGradients.size() == 2);
  REQUIRE(step.gradients.count("x"));
  const float h = 1e-2f;
  auto check = [&](const ir::Tensor &analytic, std::vector<float> &values) {
    REQUIRE(analytic.f.size() == values.size());
    double scale = 0;
    for (float v : analytic.f)
      scale = std::max(scale, std::fabs(static_cast<double>(v)));
    REQUIRE(scale > 1e-3);
    for (size_t i = 0; i < values.size(); ++i) {
      const float saved = values[i];
      values[i] = saved + h;
      const double up = runtime::runTrainingStep(g, {{"x", x}}, labels).loss;
      values[i] = saved - h;
      const double down = runtime::runTrainingStep(g, {{"x", x}}, labels).loss;
      values[i] = saved;
      INFO(i);
      CHECK(analytic.f[i] == Approx((up - down) / (2.0 * h)).margin(2e-3 * scale));
    }
  };
  check(step.weightGradients.at("a"), g.initializers.at("a").f);
  check(step.weightGradients.at("w"), g.initializers.at("w").f);
  check(step.gradients.at("x"), x.f);
}
