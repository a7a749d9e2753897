// Neural transformations of a model (Turner et al., ASPLOS 2021, §4): group, depthwise,
// bottleneck, spatial_bottleneck and the sequences seq1 / seq2 / seq3 of a convolution, written
// as "NODE:transform(args)" and applied to the graph.
#pragma once

#include "ir/Error.h"
#include "ir/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nasc::nas {

/// One neural transformation of one Conv node, e.g. {"layer1.0.conv1", "group", {4}}.
struct NeuralStep {
  std::string node;
  std::string transform; ///< A name of the registry (NeuralRegistry.h): "group", ...
  std::vector<int64_t> args;

  /// "layer1.0.conv1:group(4)", the text parseNeuralStep reads.
  std::string toString() const;
};

/// Parses "NODE:transform(args)": NODE is everything before the last ':' (node names may contain
/// ':'), args are positive integers, as many as the transformation takes (NeuralRegistry.h).
/// Throws nasc::Error quoting `text` for a missing node, an unknown transformation or the wrong
/// number or kind of arguments.
NeuralStep parseNeuralStep(const std::string &text);

/// "a:group(2); b:bottleneck(4)": the steps' toString joined by "; " ("" for none). Equal texts
/// are the same sequence of steps.
std::string stepsText(const std::vector<NeuralStep> &steps);

/// A neural transformation the model's structure does not allow (a group count that does not
/// divide the channels, a residual Add whose branches would disagree, ...). `what()` names the
/// model file, the node, the transformation and why.
class RefusedTransformation : public Error {
public:
  explicit RefusedTransformation(const std::string &message) : Error(message) {}
};

/// `graph` with `step` applied, every value's shape inferred again. `graph` must have static
/// shapes (ir::prepareForTraining). Weights are sliced, not re-initialised: the kept output
/// channels, and of every kept kernel the input channels it still reads (see Group.h,
/// Bottleneck.h, Seq.h, Seq3.h, SpatialBottleneck.h). Graph outputs keep their shapes. Throws
/// RefusedTransformation for a structural refusal, nasc::Error for an unknown transformation, the
/// wrong number of arguments or a node that is not a Conv with an initializer weight.
ir::Graph applyNeuralStep(const ir::Graph &graph, const NeuralStep &step);

/// `graph` with each of `steps` applied in order (applyNeuralStep, whose errors it throws).
ir::Graph applyNeuralSteps(ir::Graph graph, const std::vector<NeuralStep> &steps);

} // namespace nasc::nas
