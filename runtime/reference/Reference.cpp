#include "runtime/reference/Reference.h"

#include "ir/Error.h"
#include "ir/ops/OpDef.h"

namespace nasc::runtime {

namespace {

using ir::reference::OpInputs;
using ir::reference::OpOutputs;

/// Value name -> tensor of everything computed so far (inputs, initializers, node outputs).
using Environment = std::map<std::string, ir::Tensor>;

void checkInput(const ir::Graph &graph, const std::string &name, const ir::Tensor &tensor) {
  auto declared = graph.values.find(name);
  if (declared == graph.values.end())
    return;
  if (declared->second.dtype != tensor.dtype)
    throw Error(graph.source + ": input '" + name + "' has the wrong dtype");
  if (declared->second.shape != tensor.shape)
    throw Error(graph.source + ": input '" + name + "' has shape " +
                ir::shapeToString(tensor.shape) + ", expected " +
                ir::shapeToString(declared->second.shape));
}

void bindInputs(const ir::Graph &graph, const std::map<std::string, ir::Tensor> &inputs,
                Environment &env) {
  for (const std::string &name : graph.inputs) {
    auto it = inputs.find(name);
    if (it == inputs.end())
      throw Error(graph.source + ": input '" + name + "' is missing");
    checkInput(graph, name, it->second);
    const size_t expected = static_cast<size_t>(it->second.size());
    const size_t held =
        it->second.dtype == ir::DType::Float32 ? it->second.f.size() : it->second.i.size();
    if (held != expected)
      throw Error(graph.source + ": input '" + name + "' holds " + std::to_string(held) +
                  " elements, its shape " + ir::shapeToString(it->second.shape) + " needs " +
                  std::to_string(expected));
    env[name] = it->second;
  }
}

/// The tensor of value `name`: computed so far, or an initializer; nullptr if neither.
const ir::Tensor *lookup(const ir::Graph &graph, const Environment &env, const std::string &name) {
  if (auto it = env.find(name); it != env.end())
    return &it->second;
  if (auto it = graph.initializers.find(name); it != graph.initializers.end())
    return &it->second;
  return nullptr;
}

OpInputs nodeInputs(const ir::Graph &graph, const ir::Node &node, const Environment &env) {
  OpInputs tensors;
  for (const std::string &name : node.inputs) {
    const ir::Tensor *tensor = name.empty() ? nullptr : lookup(graph, env, name);
    if (!name.empty() && !tensor)
      throw Error(graph.source + ": " + node.describe() + ": input '" + name +
                  "' is not computed before the node");
    tensors.push_back(tensor);
  }
  return tensors;
}

void runNode(const ir::Graph &graph, const ir::Node &node, Environment &env) {
  const ir::OpDef *op = ir::findOp(node.op_type);
  if (!op)
    throw Error(graph.source + ": " + node.describe() + ": op '" + node.op_type +
                "' is not supported by the reference executor");
  const OpInputs inputs = nodeInputs(graph, node, env);
  OpOutputs outputs;
  try {
    outputs = op->forward(node, inputs);
  } catch (const Error &e) {
    throw Error(graph.source + ": " + e.what());
  }
  for (size_t k = 0; k < node.outputs.size() && k < outputs.size(); ++k)
    if (!node.outputs[k].empty())
      env[node.outputs[k]] = std::move(outputs[k]);
}

} // namespace

std::map<std::string, ir::Tensor> runReference(const ir::Graph &graph,
                                               const std::map<std::string, ir::Tensor> &inputs,
                                               bool keepIntermediates) {
  Environment env;
  bindInputs(graph, inputs, env);
  for (const ir::Node &node : graph.nodes)
    runNode(graph, node, env);
  if (keepIntermediates)
    return env;
  std::map<std::string, ir::Tensor> outputs;
  for (const std::string &name : graph.outputs) {
    const ir::Tensor *tensor = lookup(graph, env, name);
    if (!tensor)
      throw Error(graph.source + ": output '" + name + "' is not produced by any node");
    outputs[name] = *tensor;
  }
  return outputs;
}

} // namespace nasc::runtime
