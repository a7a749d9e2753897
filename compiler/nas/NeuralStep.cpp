#include "compiler/nas/NeuralStep.h"

#include "compiler/nas/NeuralRegistry.h"
#include "ir/passes/ShapeInference.h"

#include <algorithm>
#include <regex>
#include <sstream>

namespace nasc::nas {

namespace {

std::vector<int64_t> parseArguments(const std::string &list, const std::string &text) {
  std::vector<int64_t> args;
  static const std::regex number(R"(^\s*([1-9][0-9]{0,8})\s*$)");
  std::stringstream items(list);
  std::string item;
  while (std::getline(items, item, ',')) {
    std::smatch match;
    if (!std::regex_match(item, match, number))
      throw Error("--apply '" + text + "': argument '" + item + "' is not a positive integer");
    args.push_back(std::stoll(match[1].str()));
  }
  return args;
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

std::string stepsText(const std::vector<NeuralStep> &steps) {
  std::string text;
  for (const NeuralStep &step : steps)
    text += (text.empty() ? "" : "; ") + step.toString();
  return text;
}

NeuralStep parseNeuralStep(const std::string &text) {
  static const std::regex form(R"(^(.+):\s*([a-z_][a-z0-9_]*)\s*(?:\(([^()]*)\))?\s*$)");
  std::smatch match;
  if (!std::regex_match(text, match, form))
    throw Error("--apply '" + text + "': expected NODE:transform(args), e.g. conv1:group(4)");
  NeuralStep step{match[1].str(), match[2].str(), parseArguments(match[3].str(), text)};
  const std::string context = "--apply '" + text + "'";
  findNeuralTransform(step.transform, context).checkArgumentCount(step.args.size(), context);
  return step;
}

ir::Graph applyNeuralStep(const ir::Graph &graph, const NeuralStep &step) {
  const NeuralTransform &t = findNeuralTransform(step.transform, step.toString());
  t.checkArgumentCount(step.args.size(), step.toString());
  ir::Graph changed = graph;
  t.rewrite(changed, step);
  return reinferShapes(std::move(changed));
}

ir::Graph applyNeuralSteps(ir::Graph graph, const std::vector<NeuralStep> &steps) {
  for (const NeuralStep &step : steps)
    graph = applyNeuralStep(graph, step);
  return graph;
}

} // namespace nasc::nas
