#include "ir/passes/FoldBatchNorm.h"

#include "ir/passes/GraphEdit.h"

#include <algorithm>
#include <cmath>

namespace nasc::ir {

namespace {

bool isChannelVector(const Tensor &t, int64_t channels) {
  return t.dtype == DType::Float32 && t.shape == Shape{channels};
}

/// Index of the Conv that BN node `bn` can be folded into, or nullopt.
std::optional<size_t> foldableConv(const Graph &graph, const Node &bn) {
  if (bn.inputs.size() != 5 || bn.outputs.size() != 1)
    return std::nullopt;
  for (size_t k = 1; k < 5; ++k)
    if (!graph.isInitializer(bn.inputs[k]))
      return std::nullopt;
  const std::string &x = bn.inputs[0];
  std::optional<size_t> producer = graph.producerOf(x);
  if (!producer || graph.nodes[*producer].op_type != "Conv" || isGraphOutput(graph, x) ||
      graph.consumersOf(x).size() != 1)
    return std::nullopt;
  const Node &conv = graph.nodes[*producer];
  const bool hasBias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
  if (!graph.isInitializer(conv.inputs[1]) || (hasBias && !graph.isInitializer(conv.inputs[2])))
    return std::nullopt;
  const Tensor &w = graph.initializers.at(conv.inputs[1]);
  if (w.dtype != DType::Float32 || w.shape.empty())
    return std::nullopt;
  for (size_t k = 1; k < 5; ++k)
    if (!isChannelVector(graph.initializers.at(bn.inputs[k]), w.shape[0]))
      return std::nullopt;
  if (hasBias && !isChannelVector(graph.initializers.at(conv.inputs[2]), w.shape[0]))
    return std::nullopt;
  return producer;
}

/// s[k] = scale[k] / sqrt(var[k] + epsilon).
std::vector<double> bnMultipliers(const Graph &graph, const Node &bn) {
  const Tensor &scale = graph.initializers.at(bn.inputs[1]);
  const Tensor &var = graph.initializers.at(bn.inputs[4]);
  const double epsilon = bn.getFloat("epsilon", 1e-5f);
  std::vector<double> s(scale.f.size());
  for (size_t k = 0; k < s.size(); ++k)
    s[k] = scale.f[k] / std::sqrt(static_cast<double>(var.f[k]) + epsilon);
  return s;
}

Tensor foldedWeight(const Tensor &w, const std::vector<double> &s) {
  Tensor out = w;
  const size_t perChannel = out.f.size() / s.size();
  for (size_t k = 0; k < out.f.size(); ++k)
    out.f[k] = static_cast<float>(w.f[k] * s[k / perChannel]);
  return out;
}

Tensor foldedBias(const Graph &graph, const Node &conv, const Node &bn,
                  const std::vector<double> &s) {
  const Tensor &mean = graph.initializers.at(bn.inputs[3]);
  const Tensor &beta = graph.initializers.at(bn.inputs[2]);
  const bool hasBias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
  Tensor out = Tensor::zeros({static_cast<int64_t>(s.size())});
  for (size_t k = 0; k < s.size(); ++k) {
    const double b = hasBias ? graph.initializers.at(conv.inputs[2]).f[k] : 0.0;
    out.f[k] = static_cast<float>((b - mean.f[k]) * s[k] + beta.f[k]);
  }
  return out;
}

void setInitializer(Graph &graph, const std::string &name, Tensor tensor) {
  graph.values[name] = ValueInfo{tensor.dtype, tensor.shape};
  graph.initializers[name] = std::move(tensor);
}

void fold(Graph &graph, size_t convIndex, size_t bnIndex) {
  const Node bn = graph.nodes[bnIndex];
  Node &conv = graph.nodes[convIndex];
  const std::vector<double> s = bnMultipliers(graph, bn);
  const std::string weightName = bn.name + ".folded_W";
  const std::string biasName = bn.name + ".folded_B";
  setInitializer(graph, weightName, foldedWeight(graph.initializers.at(conv.inputs[1]), s));
  setInitializer(graph, biasName, foldedBias(graph, conv, bn, s));
  conv.inputs.resize(3);
  conv.inputs[1] = weightName;
  conv.inputs[2] = biasName;
  graph.values.erase(conv.outputs[0]);
  conv.outputs[0] = bn.outputs[0];
  graph.nodes.erase(graph.nodes.begin() + static_cast<std::ptrdiff_t>(bnIndex));
}

} // namespace

void foldBatchNorm(Graph &graph) {
  for (size_t k = 0; k < graph.nodes.size();) {
    const Node &node = graph.nodes[k];
    std::optional<size_t> conv;
    if (node.op_type == "BatchNormalization")
      conv = foldableConv(graph, node);
    if (conv) {
      fold(graph, *conv, k);
      continue;
    }
    ++k;
  }
  removeUnusedInitializers(graph);
}

} // namespace nasc::ir
