#include "TestSupport.h"

#include "ir/import/OnnxImporter.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

namespace nasc::test {

ir::Graph singleNodeGraph(const std::string &opType,
                          const std::map<std::string, ir::Attribute> &attributes,
                          const std::vector<ir::Tensor> &inputs) {
  ir::Graph graph;
  graph.name = graph.source = "test_" + opType;
  ir::Node node{opType + "_0", opType, {}, {"y"}, attributes};
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string name = "in" + std::to_string(k);
    node.inputs.push_back(name);
    graph.inputs.push_back(name);
    graph.values[name] = {inputs[k].dtype, inputs[k].shape};
  }
  graph.nodes.push_back(node);
  graph.outputs.push_back("y");
  return graph;
}

NodeCase onnxNodeCase(const std::string &caseName, const std::string &opType,
                      const std::map<std::string, ir::Attribute> &attributes, size_t numInputs) {
  const std::string dir = "/usr/share/libonnx-testdata/data/node/" + caseName + "/test_data_set_0/";
  std::vector<ir::Tensor> tensors;
  for (size_t k = 0; k < numInputs; ++k)
    tensors.push_back(ir::readTensorProto(dir + "input_" + std::to_string(k) + ".pb"));
  NodeCase c{
      singleNodeGraph(opType, attributes, tensors), {}, ir::readTensorProto(dir + "output_0.pb")};
  for (size_t k = 0; k < numInputs; ++k)
    c.inputs["in" + std::to_string(k)] = tensors[k];
  return c;
}

ir::Tensor randomTensor(const ir::Shape &shape, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  ir::Tensor t = ir::Tensor::zeros(shape);
  for (float &v : t.f)
    v = uniform(generator);
  return t;
}

void checkClose(const ir::Tensor &actual, const ir::Tensor &expected, double rtol, double atol) {
  REQUIRE(ir::shapeToString(actual.shape) == ir::shapeToString(expected.shape));
  REQUIRE(actual.f.size() == expected.f.size());
  for (size_t k = 0; k < expected.f.size(); ++k) {
    const double bound = atol + rtol * std::abs(expected.f[k]);
    if (!(std::abs(actual.f[k] - expected.f[k]) <= bound)) {
      INFO("element " << k << " of " << ir::shapeToString(expected.shape));
      CHECK(actual.f[k] == Approx(expected.f[k]));
      return;
    }
  }
}

} // namespace nasc::test
