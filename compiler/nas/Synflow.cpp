#include "compiler/nas/Synflow.h"

#include "compiler/nas/SynflowScaling.h"
#include "ir/Error.h"
#include "ir/passes/ShapeInference.h"
#include "runtime/reference/Training.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

/// ln Σ |W̃ ⊙ dR̃/dW̃| of the Conv weight `weight` of the scaled copy; −infinity when it has no
/// gradient or the sum is 0.
double logScaledFlow(const ScaledGraph &scaled, const runtime::TrainingStep &step,
                     const std::string &weight) {
  auto gradient = step.weightGradients.find(weight);
  if (gradient == step.weightGradients.end())
    return -std::numeric_limits<double>::infinity();
  const ir::Tensor &w = scaled.graph.initializers.at(weight);
  double sum = 0;
  for (size_t i = 0; i < w.f.size(); ++i)
    sum += std::fabs(static_cast<double>(w.f[i]) * gradient->second.f[i]);
  return std::log(sum);
}

/// ln Σ exp(x) over `logs` by log-sum-exp (the largest factored out, so nothing overflows);
/// −infinity when `logs` is empty or every entry is −infinity.
double logSumExp(const std::vector<LayerScore> &logs) {
  double largest = -std::numeric_limits<double>::infinity();
  for (const LayerScore &layer : logs)
    largest = std::max(largest, layer.value);
  if (std::isinf(largest))
    return largest;
  double sum = 0;
  for (const LayerScore &layer : logs)
    sum += std::exp(layer.value - largest);
  return largest + std::log(sum);
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
  ProxyScore score;
  for (const ir::Node &node : net.nodes)
    if (node.op_type == "Conv")
      score.layers.push_back({node.outputs.at(0), logScaledFlow(scaled, step, node.inputs.at(1)) +
                                                      scaled.logOutputScale});
  score.total = logSumExp(score.layers);
  return score;
}

} // namespace nasc::nas
