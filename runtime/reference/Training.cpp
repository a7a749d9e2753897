#include "runtime/reference/Training.h"

#include "ir/Error.h"
#include "ir/ops/OpDef.h"

#include <cmath>
#include <set>

namespace nasc::runtime {

namespace {

using ir::reference::BackwardArgs;
using ir::reference::InputGradients;
using ir::reference::OpInputs;
using ir::reference::OpOutputs;

[[noreturn]] void failNode(const ir::Graph &graph, const ir::Node &node, const std::string &why) {
  throw Error(graph.source + ": " + node.describe() + ": " + why);
}

/// The registry entry of `node`'s op; throws nasc::Error naming the node when the op has no
/// backward kernel.
const ir::OpDef &trainableOp(const ir::Graph &graph, const ir::Node &node) {
  const ir::OpDef *op = ir::findOp(node.op_type);
  if (!op || !op->backward)
    failNode(graph, node, "op '" + node.op_type + "' is not supported in training mode");
  return *op;
}

const ir::Tensor *lookup(const ir::Graph &graph, const std::map<std::string, ir::Tensor> &values,
                         const std::string &name) {
  if (auto it = values.find(name); it != values.end())
    return &it->second;
  if (auto it = graph.initializers.find(name); it != graph.initializers.end())
    return &it->second;
  return nullptr;
}

OpInputs nodeInputs(const ir::Graph &graph, const ir::Node &node,
                    const std::map<std::string, ir::Tensor> &values) {
  OpInputs tensors;
  for (const std::string &name : node.inputs) {
    const ir::Tensor *tensor = name.empty() ? nullptr : lookup(graph, values, name);
    if (!name.empty() && !tensor)
      failNode(graph, node, "input '" + name + "' is not computed before the node");
    tensors.push_back(tensor);
  }
  return tensors;
}

/// Runs every node forward; returns the names of the values that depend on a graph input.
std::set<std::string> forward(const ir::Graph &graph, std::map<std::string, ir::Tensor> &values) {
  std::set<std::string> dependent(graph.inputs.begin(), graph.inputs.end());
  for (const ir::Node &node : graph.nodes) {
    const ir::OpDef &op = trainableOp(graph, node);
    OpOutputs outputs;
    try {
      outputs = (op.trainingForward ? op.trainingForward
                                    : op.forward)(node, nodeInputs(graph, node, values));
    } catch (const Error &e) {
      throw Error(graph.source + ": " + e.what());
    }
    bool depends = false;
    for (const std::string &input : node.inputs)
      depends = depends || dependent.count(input);
    for (size_t k = 0; k < node.outputs.size() && k < outputs.size(); ++k) {
      if (node.outputs[k].empty())
        continue;
      if (depends && outputs[k].dtype == ir::DType::Float32)
        dependent.insert(node.outputs[k]);
      values[node.outputs[k]] = std::move(outputs[k]);
    }
  }
  return dependent;
}

void accumulate(std::map<std::string, ir::Tensor> &gradients, const std::string &name,
                ir::Tensor gradient) {
  auto [it, inserted] = gradients.try_emplace(name, std::move(gradient));
  if (!inserted)
    for (size_t i = 0; i < it->second.f.size(); ++i)
      it->second.f[i] += gradient.f[i];
}

/// Adds dL/d(weight) of `node`'s weight inputs that are initializers (OpDef::weightGradients).
void addWeightGradients(const ir::Graph &graph, const ir::OpDef &op, const BackwardArgs &args,
                        TrainingStep &step) {
  if (!op.weightGradients)
    return;
  InputGradients grads;
  try {
    grads = op.weightGradients(args);
  } catch (const Error &e) {
    throw Error(graph.source + ": " + e.what());
  }
  for (size_t k = 0; k < grads.size() && k < args.node.inputs.size(); ++k)
    if (grads[k] && graph.initializers.count(args.node.inputs[k]))
      accumulate(step.weightGradients, args.node.inputs[k], std::move(*grads[k]));
}

void backwardNode(const ir::Graph &graph, const ir::Node &node,
                  const std::map<std::string, ir::Tensor> &values,
                  const std::set<std::string> &dependent, bool weightGradients,
                  TrainingStep &step) {
  auto dy = step.gradients.find(node.outputs.empty() ? "" : node.outputs[0]);
  if (dy == step.gradients.end())
    return;
  const OpInputs inputs = nodeInputs(graph, node, values);
  const BackwardArgs args{node, inputs, values.at(node.outputs[0]), dy->second};
  const ir::OpDef &op = trainableOp(graph, node);
  InputGradients grads;
  try {
    grads = op.backward(args);
  } catch (const Error &e) {
    throw Error(graph.source + ": " + e.what());
  }
  if (weightGradients)
    addWeightGradients(graph, op, args, step);
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    if (!dependent.count(node.inputs[k]))
      continue;
    if (k >= grads.size() || !grads[k])
      failNode(graph, node,
               "no gradient w.r.t. input '" + node.inputs[k] +
                   "', which depends on the graph input");
    accumulate(step.gradients, node.inputs[k], std::move(*grads[k]));
  }
}

std::map<std::string, ir::Tensor> graphInputs(const ir::Graph &graph,
                                              const std::map<std::string, ir::Tensor> &inputs) {
  std::map<std::string, ir::Tensor> values;
  for (const std::string &name : graph.inputs) {
    auto it = inputs.find(name);
    if (it == inputs.end() || it->second.dtype != ir::DType::Float32)
      throw Error(graph.source + ": input '" + name + "' is missing or not float32");
    values[name] = it->second;
  }
  return values;
}

} // namespace

double crossEntropy(const ir::Tensor &logits, const std::vector<int64_t> &labels,
                    ir::Tensor &dlogits) {
  if (logits.shape.size() != 2 || logits.shape[0] != static_cast<int64_t>(labels.size()))
    throw Error("cross-entropy: logits " + ir::shapeToString(logits.shape) + " must be (" +
                std::to_string(labels.size()) + ", classes)");
  const int64_t batch = logits.shape[0], classes = logits.shape[1];
  dlogits = ir::Tensor::zeros(logits.shape);
  double loss = 0;
  for (int64_t n = 0; n < batch; ++n) {
    if (labels[n] < 0 || labels[n] >= classes)
      throw Error("cross-entropy: label " + std::to_string(labels[n]) + " of sample " +
                  std::to_string(n) + " is outside [0, " + std::to_string(classes) + ")");
    const float *z = logits.f.data() + n * classes;
    double top = z[0], sum = 0;
    for (int64_t k = 1; k < classes; ++k)
      top = std::max<double>(top, z[k]);
    for (int64_t k = 0; k < classes; ++k)
      sum += std::exp(z[k] - top);
    loss += top + std::log(sum) - z[labels[n]];
    for (int64_t k = 0; k < classes; ++k)
      dlogits.f[n * classes + k] = static_cast<float>(
          (std::exp(z[k] - top) / sum - (k == labels[n] ? 1.0 : 0.0)) / static_cast<double>(batch));
  }
  return loss / static_cast<double>(batch);
}

TrainingStep runTrainingStep(const ir::Graph &graph,
                             const std::map<std::string, ir::Tensor> &inputs,
                             const std::vector<int64_t> &labels, bool weightGradients) {
  const OutputLoss loss = [&](const ir::Tensor &logits, ir::Tensor &dlogits) {
    return crossEntropy(logits, labels, dlogits);
  };
  return runForwardBackward(graph, inputs, loss, weightGradients);
}

std::map<std::string, ir::Tensor>
runTrainingForward(const ir::Graph &graph, const std::map<std::string, ir::Tensor> &inputs) {
  std::map<std::string, ir::Tensor> values = graphInputs(graph, inputs);
  forward(graph, values);
  return values;
}

TrainingStep runForwardBackward(const ir::Graph &graph,
                                const std::map<std::string, ir::Tensor> &inputs,
                                const OutputLoss &loss, bool weightGradients) {
  if (graph.outputs.size() != 1)
    throw Error(graph.source + ": training needs exactly one graph output (the logits), got " +
                std::to_string(graph.outputs.size()));
  TrainingStep step;
  step.values = graphInputs(graph, inputs);
  const std::set<std::string> dependent = forward(graph, step.values);
  const ir::Tensor *output = lookup(graph, step.values, graph.outputs[0]);
  if (!output)
    throw Error(graph.source + ": output '" + graph.outputs[0] + "' is not produced by any node");
  ir::Tensor doutput;
  try {
    step.loss = loss(*output, doutput);
  } catch (const Error &e) {
    throw Error(graph.source + ": " + e.what());
  }
  step.gradients[graph.outputs[0]] = std::move(doutput);
  for (auto node = graph.nodes.rbegin(); node != graph.nodes.rend(); ++node)
    backwardNode(graph, *node, step.values, dependent, weightGradients, step);
  return step;
}

} // namespace nasc::runtime
