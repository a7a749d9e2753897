// The built-in ResNet-18 spec (models/resnet18.json) through loadModel: the shapes follow from
// torchvision's ResNet-18 definition for a 224x224 input.
#include "ir/import/ModelLoader.h"

#include <catch2/catch.hpp>

#include <algorithm>

namespace {

const std::string kResnet18 = std::string(NASC_SOURCE_DIR) + "/models/resnet18.json";

size_t countOps(const nasc::ir::Graph &graph, const std::string &op) {
  return static_cast<size_t>(std::count_if(graph.nodes.begin(), graph.nodes.end(),
                                           [&](const auto &n) { return n.op_type == op; }));
}

} // namespace

TEST_CASE("ResNet-18 spec loads to logits 1x1000 with every BN folded into its conv") {
  nasc::ir::Graph graph = nasc::ir::loadModel(kResnet18);
  CHECK(graph.outputs == std::vector<std::string>{"logits"});
  CHECK(graph.shapeOf("logits") == nasc::ir::Shape{1, 1000});
  CHECK(countOps(graph, "Conv") == 20);
  CHECK(countOps(graph, "BatchNormalization") == 0);
  CHECK(countOps(graph, "Add") == 8);
  CHECK(graph.shapeOf("maxpool") == nasc::ir::Shape{1, 64, 56, 56});
  CHECK(graph.shapeOf("layer4.1.relu2") == nasc::ir::Shape{1, 512, 7, 7});
  CHECK(graph.shapeOf("avgpool") == nasc::ir::Shape{1, 512, 1, 1});
}

TEST_CASE("ResNet-18 raw load keeps the BNs and the torchvision parameter count") {
  nasc::ir::Graph graph = nasc::ir::loadModelRaw(kResnet18);
  CHECK(countOps(graph, "BatchNormalization") == 20);
  int64_t trainable = 0;
  for (const auto &[name, tensor] : graph.initializers)
    if (name.find("running_") == std::string::npos)
      trainable += tensor.size();
  CHECK(trainable == 11689512);
}

TEST_CASE("a batch-size override reaches the logits shape") {
  nasc::ir::Graph graph = nasc::ir::loadModel(kResnet18, {{"input", {4, 3, 224, 224}}});
  CHECK(graph.shapeOf("logits") == nasc::ir::Shape{4, 1000});
}
