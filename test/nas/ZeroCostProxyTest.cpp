// synflow, jacob_cov (NASWOT), snip and grad_norm of two ResNet-18s against PyTorch's values on the
// same batch and weights (tools/fisher_reference.py: models from the ctest fixture
// export_fisher_models, values committed in test/data/fisher/<model>_proxies.json). Measured on
// this machine: relative error <= 1e-5 per layer for snip / grad_norm (float32 gradients), <= 1e-7
// for synflow (float32 here, float64 in PyTorch; nasc's ln synflow against the ln of PyTorch's
// value) and an identical log-determinant for jacob_cov.
#include "compiler/nas/ZeroCostProxy.h"
#include "compiler/nas/FashionMnist.h"
#include "compiler/nas/Synflow.h"
#include "ir/Error.h"
#include "ir/import/ModelLoader.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <iostream>

namespace {

using namespace nasc;

/// `proxy` of `model` (with its own weights, on its Fashion-MNIST batch) against PyTorch's values:
/// per layer and total to `relative` error, the total also to `absolute` error. synflow's values
/// are natural logs (Synflow.h) and PyTorch's are linear: nasc's ln against the ln of PyTorch's,
/// to `relative` absolute error in ln (a relative error e of the linear values is about e in ln).
void checkAgainstPyTorch(const std::string &model, const std::string &proxy, double relative,
                         double absolute) {
  std::ifstream file(std::string(NASC_SOURCE_DIR) + "/test/data/fisher/" + model + "_proxies.json");
  REQUIRE(file);
  const nlohmann::json expected = nlohmann::json::parse(file)[proxy];
  const ir::Graph graph =
      ir::loadModelRaw(std::string(NASC_BINARY_DIR) + "/fisher/" + model + ".onnx");
  const nas::ImageBatch batch = nas::fashionMnistBatch(graph.shapeOf(graph.inputs.at(0)),
                                                       graph.shapeOf(graph.outputs.at(0))[1]);
  const nas::ProxyScore score =
      nas::measureProxy(nas::parseProxy(proxy), graph, batch.images, batch.labels);
  REQUIRE(score.layers.size() == expected["layers"].size());
  const bool ln = proxy == "synflow";
  auto errorOf = [ln](double value, double want) {
    return ln ? std::fabs(value - std::log(want)) : std::fabs(value - want) / want;
  };
  double worst = 0;
  for (const nas::LayerScore &layer : score.layers) {
    INFO(model << " " << proxy << " layer " << layer.conv);
    REQUIRE(expected["layers"].contains(layer.conv));
    const double want = expected["layers"][layer.conv].get<double>();
    CHECK(want > 0);
    const double error = errorOf(layer.value, want);
    CHECK(error <= relative);
    worst = std::max(worst, error);
  }
  const double want =
      ln ? std::log(expected["total"].get<double>()) : expected["total"].get<double>();
  const double totalError = std::fabs(score.total - want);
  CHECK(totalError <= (ln ? relative : std::max(relative * std::fabs(want), absolute)));
  std::cout << model << " " << proxy << (ln ? " (ln)" : "") << ": " << score.total << " (PyTorch "
            << want << "), error: total " << totalError << " absolute, "
            << totalError / std::fabs(want) << " relative; worst layer " << worst
            << (ln ? " absolute in ln\n" : " relative\n");
}

} // namespace

TEST_CASE("grad_norm of both ResNet-18s matches PyTorch per layer and in total", "[nas][proxy]") {
  checkAgainstPyTorch("cifar_resnet18", "grad_norm", 1e-3, 0);
  checkAgainstPyTorch("torchvision_resnet18", "grad_norm", 1e-3, 0);
}

TEST_CASE("snip of both ResNet-18s matches PyTorch per layer and in total", "[nas][proxy]") {
  checkAgainstPyTorch("cifar_resnet18", "snip", 1e-3, 0);
  checkAgainstPyTorch("torchvision_resnet18", "snip", 1e-3, 0);
}

TEST_CASE("ln synflow of both ResNet-18s matches the ln of PyTorch's float64 values",
          "[nas][proxy]") {
  checkAgainstPyTorch("cifar_resnet18", "synflow", 1e-3, 0);
  checkAgainstPyTorch("torchvision_resnet18", "synflow", 1e-3, 0);
}

TEST_CASE("jacob_cov (NASWOT) of both ResNet-18s matches PyTorch's log-determinant",
          "[nas][proxy]") {
  checkAgainstPyTorch("cifar_resnet18", "jacob_cov", 0, 1e-3);
  checkAgainstPyTorch("torchvision_resnet18", "jacob_cov", 0, 1e-3);
}

TEST_CASE("jacob_cov of identical images is -inf (K singular) and needs a Relu", "[nas][proxy]") {
  const ir::Graph graph =
      ir::loadModelRaw(std::string(NASC_BINARY_DIR) + "/fisher/cifar_resnet18.onnx");
  ir::Tensor same = ir::Tensor::zeros({4, 3, 32, 32});
  for (size_t i = 0; i < same.f.size(); ++i)
    same.f[i] = static_cast<float>(i % (3 * 32 * 32)) * 1e-3f;
  const nas::ProxyScore score = nas::measureProxy(nas::Proxy::JacobCov, graph, same, {});
  CHECK(score.layers.empty());
  CHECK(std::isinf(score.total));
  CHECK(score.total < 0);

  ir::Graph noRelu;
  noRelu.source = "no-relu";
  noRelu.inputs = {"x"};
  noRelu.outputs = {"y"};
  noRelu.values["x"] = {ir::DType::Float32, {2, 1, 1, 1}};
  noRelu.nodes = {{"id", "Identity", {"x"}, {"y"}, {}}};
  CHECK_THROWS_WITH(
      nas::measureProxy(nas::Proxy::JacobCov, noRelu, ir::Tensor::zeros({2, 1, 1, 1}), {}),
      Catch::Matchers::Contains("needs at least one Relu"));
}

TEST_CASE("synflow does not depend on the weights' signs nor on the BN parameters",
          "[nas][proxy]") {
  ir::Graph graph = ir::loadModelRaw(std::string(NASC_BINARY_DIR) + "/fisher/cifar_resnet18.onnx");
  const nas::ProxyScore original = nas::synflow(graph);
  for (auto &[name, tensor] : graph.initializers)
    if (tensor.dtype == ir::DType::Float32 && tensor.shape.size() == 4)
      for (float &v : tensor.f)
        v = -v;
  for (const ir::Node &node : graph.nodes)
    if (node.op_type == "BatchNormalization")
      for (float &v : graph.initializers.at(node.inputs.at(1)).f)
        v *= 3.0f;
  const nas::ProxyScore changed = nas::synflow(graph);
  CHECK(changed.total == Approx(original.total).epsilon(1e-12));
}

TEST_CASE("parseProxy knows the five proxies and rejects others", "[nas][proxy]") {
  for (const std::string &name : nas::proxyNames())
    CHECK(nas::proxyNames().at(static_cast<size_t>(nas::parseProxy(name))) == name);
  CHECK(nas::parseProxy("fisher") == nas::Proxy::Fisher);
  CHECK_THROWS_WITH(nas::parseProxy("zen"), Catch::Matchers::Contains("unknown proxy 'zen'") &&
                                                Catch::Matchers::Contains("grad_norm"));
}
