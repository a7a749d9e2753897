#include "compiler/nas/NeuralStep.h"

#include "compiler/nas/Bottleneck.h"
#include "compiler/nas/Group.h"
#include "compiler/nas/Seq.h"
#include "compiler/nas/Seq3.h"
#include "compiler/nas/SpatialBottleneck.h"
#include "ir/passes/ShapeInference.h"

#include <algorithm>
#include <regex>
#include <sstream>

namespace nasc::nas {

namespace {

struct TransformSpec {
  std::string name;
  size_t minArguments, maxArguments;
};

const std::vector<TransformSpec> &transformSpecs() {
  static const std::vector<TransformSpec> specs{
      {"group", 1, 1}, {"depthwise", 0, 0}, {"bottleneck", 1, 1}, {"seq1", 2, 16}, {"seq2", 2, 2},
      {"seq3", 1, 1},  {"spatial_bottleneck", 1, 1}};
  return specs;
}

std::string argumentCount(const TransformSpec &spec) {
  std::string count = std::to_string(spec.minArguments);
  if (spec.maxArguments != spec.minArguments)
    count += " to " + std::to_string(spec.maxArguments);
  return count + " integer argument" + (spec.maxArguments == 1 ? "" : "s");
}

std::vector<int64_t> parseArguments(const std::string &list, const std::string &text) {
  std::vector<int64_t> args;
  static const std::regex number(R"(^\s*([1-9][0-9]{0,8})\s*$)");
  std::stringstream items(list);
  std::string item;
  while (std::getline(items, item, ',')) {
    std::smatch match;
    if (!std::regex_match(item, match, number))
      throw Error("--apply '" + text + "': argument '" + item +
                  "' is not a positive integer");
    args.push_back(std::stoll(match[1].str()));
  }
  return args;
}

std::string knownTransforms() {
  std::string known;
  for (const std::string &name : neuralTransformNames())
    known += (known.empty() ? "" : ", ") + name;
  return known;
}

/// Drops the inferred shapes of every node output that is not a graph output, then infers them
/// again from the graph inputs and (changed) initializers.
ir::Graph reinferShapes(ir::Graph graph) {
  for (const ir::Node &node : graph.nodes)
    for (const std::string &output : node.outputs)
      if (std::find(graph.outputs.begin(), graph.outputs.end(), output) == graph.outputs.end())
        graph.values.erase(output);
  ir::inferShapes(graph);
  return graph;
}

} // namespace

std::string NeuralStep::toString() const {
  std::string text = node + ":" + transform;
  if (args.empty())
    return text;
  text += "(";
  for (size_t k = 0; k < args.size(); ++k)
    text += (k ? ", " : "") + std::to_string(args[k]);
  return text + ")";
}

const std::vector<std::string> &neuralTransformNames() {
  static const std::vector<std::string> names{"group(G)", "depthwise", "bottleneck(B)",
                                              "seq1(G1,...,Gp)", "seq2(u,G)", "seq3(P)",
                                              "spatial_bottleneck(S)"};
  return names;
}

NeuralStep parseNeuralStep(const std::string &text) {
  static const std::regex form(R"(^(.+):\s*([a-z_][a-z0-9_]*)\s*(?:\(([^()]*)\))?\s*$)");
  std::smatch match;
  if (!std::regex_match(text, match, form))
    throw Error("--apply '" + text + "': expected NODE:transform(args), e.g. conv1:group(4)");
  NeuralStep step{match[1].str(), match[2].str(), parseArguments(match[3].str(), text)};
  const auto &specs = transformSpecs();
  auto spec = std::find_if(specs.begin(), specs.end(),
                           [&](const TransformSpec &s) { return s.name == step.transform; });
  if (spec == specs.end())
    throw Error("--apply '" + text + "': unknown transformation '" + step.transform +
                "' (known: " + knownTransforms() + ")");
  if (step.args.size() < spec->minArguments || step.args.size() > spec->maxArguments)
    throw Error("--apply '" + text + "': " + step.transform + " takes " + argumentCount(*spec));
  return step;
}

ir::Graph applyNeuralStep(const ir::Graph &graph, const NeuralStep &step) {
  ir::Graph changed = graph;
  if (step.transform == "group")
    group(changed, step.node, step.args.at(0));
  else if (step.transform == "depthwise")
    depthwise(changed, step.node);
  else if (step.transform == "bottleneck")
    bottleneck(changed, step.node, step.args.at(0));
  else if (step.transform == "seq1")
    seq1(changed, step.node, step.args);
  else if (step.transform == "seq2")
    seq2(changed, step.node, step.args.at(0), step.args.at(1));
  else if (step.transform == "seq3")
    seq3(changed, step.node, step.args.at(0));
  else
    spatialBottleneck(changed, step.node, step.args.at(0));
  return reinferShapes(std::move(changed));
}

} // namespace nasc::nas
