#include "LowerGraphs.h"

namespace nasc::lowertest {

void addValue(ir::Graph &g, const std::string &name, const ir::Shape &shape) {
  g.values[name] = ir::ValueInfo{ir::DType::Float32, shape};
}

void addInitializer(ir::Graph &g, const std::string &name, const ir::Shape &shape, int salt) {
  ir::Tensor t = ir::Tensor::zeros(shape);
  for (size_t k = 0; k < t.f.size(); ++k)
    t.f[k] = 0.1f * static_cast<float>((static_cast<int>(k) * 7 + salt) % 11) - 0.5f;
  g.initializers[name] = t;
  addValue(g, name, shape);
}

void addNode(ir::Graph &g, const std::string &name, const std::string &opType,
             std::vector<std::string> inputs, std::vector<std::string> outputs,
             std::map<std::string, ir::Attribute> attributes) {
  ir::Node node;
  node.name = name;
  node.op_type = opType;
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  node.attributes = std::move(attributes);
  g.nodes.push_back(std::move(node));
}

ir::Graph oneNodeGraph(const std::string &opType, const ir::Shape &xShape, const ir::Shape &yShape,
                       std::map<std::string, ir::Attribute> attributes,
                       std::vector<std::string> extraInputs) {
  ir::Graph g;
  g.name = "test";
  g.source = "<test>";
  g.inputs = {"x"};
  g.outputs = {"y"};
  addValue(g, "x", xShape);
  addValue(g, "y", yShape);
  std::vector<std::string> inputs{"x"};
  inputs.insert(inputs.end(), extraInputs.begin(), extraInputs.end());
  addNode(g, "op", opType, inputs, {"y"}, std::move(attributes));
  return g;
}

} // namespace nasc::lowertest
