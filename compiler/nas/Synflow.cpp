#include "compiler/nas/Synflow.h"

#include "ir/Error.h"
#include "runtime/reference/Training.h"

#include <cmath>

namespace nasc::nas {

namespace {

/// `graph` without BatchNormalization (each becomes an Identity of its X) and with |initializers|.
ir::Graph linearized(const ir::Graph &graph) {
  ir::Graph copy = graph;
  for (ir::Node &node : copy.nodes)
    if (node.op_type == "BatchNormalization")
      node = ir::Node{node.name, "Identity", {node.inputs.at(0)}, {node.outputs.at(0)}, {}};
  for (auto &[name, tensor] : copy.initializers)
    if (tensor.dtype == ir::DType::Float32)
      for (float &v : tensor.f)
        v = std::fabs(v);
  return copy;
}

double sumOutput(const ir::Tensor &output, ir::Tensor &doutput) {
  doutput = ir::Tensor::zeros(output.shape);
  double sum = 0;
  for (size_t i = 0; i < output.f.size(); ++i) {
    sum += output.f[i];
    doutput.f[i] = 1.0f;
  }
  if (!std::isfinite(sum))
    throw Error("synflow: R = Σ output is not finite (float32 overflow)");
  return sum;
}

} // namespace

ProxyScore synflow(const ir::Graph &graph) {
  if (graph.inputs.size() != 1 || graph.shapeOf(graph.inputs[0]).empty())
    throw Error(graph.source + ": synflow needs exactly one graph input of known shape");
  const ir::Graph net = linearized(graph);
  ir::Shape shape = graph.shapeOf(graph.inputs[0]);
  shape[0] = 1;
  ir::Tensor ones = ir::Tensor::zeros(shape);
  for (float &v : ones.f)
    v = 1.0f;
  const runtime::TrainingStep step =
      runtime::runForwardBackward(net, {{net.inputs[0], ones}}, sumOutput, true);
  ProxyScore score;
  for (const ir::Node &node : net.nodes) {
    if (node.op_type != "Conv")
      continue;
    LayerScore layer{node.outputs.at(0), 0.0};
    auto gradient = step.weightGradients.find(node.inputs.at(1));
    if (gradient != step.weightGradients.end()) {
      const ir::Tensor &w = net.initializers.at(node.inputs[1]);
      for (size_t i = 0; i < w.f.size(); ++i)
        layer.value += std::fabs(static_cast<double>(w.f[i]) * gradient->second.f[i]);
    }
    if (!std::isfinite(layer.value))
      throw Error(graph.source + ": synflow of " + node.describe() +
                  " is not finite (float32 overflow)");
    score.total += layer.value;
    score.layers.push_back(std::move(layer));
  }
  return score;
}

} // namespace nasc::nas
