#include "compiler/nas/Synflow.h"

#include "compiler/nas/SynflowScaling.h"
#include "ir/Error.h"
#include "ir/passes/ShapeInference.h"
#include "runtime/reference/Training.h"

#include <cmath>

namespace nasc::nas {

namespace {

/// `graph` when every node output has a shape, else `copy` with them (a graph loaded raw has
/// none; scaleForSynflow needs them).
const ir::Graph &withShapes(const ir::Graph &graph, ir::Graph &copy) {
  for (const ir::Node &node : graph.nodes)
    for (const std::string &output : node.outputs)
      if (!graph.values.count(output) || graph.values.at(output).shape.empty()) {
        copy = graph;
        ir::inferShapes(copy);
        return copy;
      }
  return graph;
}

double sumOutput(const ir::Tensor &output, ir::Tensor &doutput) {
  doutput = ir::Tensor::zeros(output.shape);
  double sum = 0;
  for (size_t i = 0; i < output.f.size(); ++i) {
    sum += output.f[i];
    doutput.f[i] = 1.0f;
  }
  if (!std::isfinite(sum))
    throw Error("synflow: R = Σ output of the scaled network is not finite");
  return sum;
}

} // namespace

ProxyScore synflow(const ir::Graph &graph) {
  if (graph.inputs.size() != 1 || graph.shapeOf(graph.inputs[0]).empty())
    throw Error(graph.source + ": synflow needs exactly one graph input of known shape");
  ir::Graph copy;
  const ir::Graph &net = withShapes(graph, copy);
  const ScaledGraph scaled = scaleForSynflow(net);
  ir::Shape shape = graph.shapeOf(graph.inputs[0]);
  shape[0] = 1;
  const ir::Tensor ones = ir::Tensor::zeros(shape, 1.0f);
  const runtime::TrainingStep step =
      runtime::runForwardBackward(scaled.graph, {{net.inputs[0], ones}}, sumOutput, true);
  const double outputScale = std::exp(scaled.logOutputScale);
  ProxyScore score;
  for (const ir::Node &node : net.nodes) {
    if (node.op_type != "Conv")
      continue;
    LayerScore layer{node.outputs.at(0), 0.0};
    auto gradient = step.weightGradients.find(node.inputs.at(1));
    if (gradient != step.weightGradients.end()) {
      const ir::Tensor &w = scaled.graph.initializers.at(node.inputs[1]);
      for (size_t i = 0; i < w.f.size(); ++i)
        layer.value += std::fabs(static_cast<double>(w.f[i]) * gradient->second.f[i]);
    }
    layer.value *= outputScale;
    if (!std::isfinite(layer.value))
      throw Error(graph.source + ": synflow of " + node.describe() +
                  " is beyond the double range (ln synflow > 709)");
    score.total += layer.value;
    score.layers.push_back(std::move(layer));
  }
  return score;
}

} // namespace nasc::nas
