#include "compiler/nas/ConvLayer.h"

#include "ir/Error.h"
#include "ir/passes/GraphEdit.h"

#include <algorithm>

namespace nasc::nas {

namespace {

std::string ownInitializer(const ir::Graph &graph, const ir::Node &node, size_t input,
                           const std::string &transform) {
  const std::string &name = node.inputs[input];
  if (!graph.isInitializer(name))
    throw Error(refusal(graph, node, transform,
                        "input '" + name +
                            "' is not an initializer (weights computed at run "
                            "time cannot be reshaped)"));
  if (graph.consumersOf(name).size() != 1)
    throw Error(
        refusal(graph, node, transform, "initializer '" + name + "' is shared with other nodes"));
  return name;
}

} // namespace

std::string refusal(const ir::Graph &graph, const ir::Node &node, const std::string &transform,
                    const std::string &why) {
  return graph.source + ": " + node.describe() + ": " + transform + ": " + why;
}

ConvLayer convLayer(const ir::Graph &graph, const std::string &name, const std::string &transform) {
  auto it = std::find_if(graph.nodes.begin(), graph.nodes.end(),
                         [&](const ir::Node &n) { return n.name == name; });
  if (it == graph.nodes.end())
    throw Error(graph.source + ": " + transform + ": no node named '" + name + "'");
  const ir::Node &node = *it;
  if (node.op_type != "Conv")
    throw Error(refusal(graph, node, transform, "only Conv nodes can be transformed"));
  ConvLayer layer;
  layer.node = static_cast<size_t>(it - graph.nodes.begin());
  layer.weight = ownInitializer(graph, node, 1, transform);
  if (node.inputs.size() > 2 && !node.inputs[2].empty())
    layer.bias = ownInitializer(graph, node, 2, transform);
  const ir::Shape &x = graph.shapeOf(node.inputs[0]);
  layer.C = x.at(1);
  layer.K = graph.initializers.at(layer.weight).shape.at(0);
  layer.group = node.getInt("group", 1);
  return layer;
}

std::vector<int64_t> divisorsBetween(int64_t n, int64_t lo, int64_t hi) {
  std::vector<int64_t> divisors;
  for (int64_t d = std::max<int64_t>(lo, 1); d <= std::min(hi, n); ++d)
    if (n % d == 0)
      divisors.push_back(d);
  return divisors;
}

std::vector<int64_t> outputExtents(const ir::Graph &graph, const ConvLayer &conv) {
  const ir::Shape &y = graph.shapeOf(graph.nodes.at(conv.node).outputs.at(0));
  return {y.begin() + 2, y.end()};
}

namespace {

/// Whether `value` is written by a Conv and read only by one node.
bool onlyReadOnce(const ir::Graph &graph, const std::string &value) {
  const std::optional<size_t> producer = graph.producerOf(value);
  return producer && graph.nodes[*producer].op_type == "Conv" &&
         graph.consumersOf(value).size() == 1 && !ir::isGraphOutput(graph, value);
}

} // namespace

const std::string &layerOutput(const ir::Graph &graph, const ir::Node &conv) {
  const std::string &output = conv.outputs.at(0);
  const std::vector<size_t> readers = graph.consumersOf(output);
  if (readers.size() != 1 || graph.nodes[readers[0]].op_type != "Concat")
    return output;
  const ir::Node &concat = graph.nodes[readers[0]];
  const bool parts = std::all_of(concat.inputs.begin(), concat.inputs.end(),
                                 [&](const std::string &in) { return onlyReadOnce(graph, in); });
  return parts ? concat.outputs.at(0) : output;
}

ir::Node convPart(ir::Graph &graph, const ir::Node &conv, const std::string &suffix) {
  ir::Node part = conv;
  part.name = ir::freshName(graph, conv.name + "_" + suffix);
  part.outputs = {ir::freshName(graph, conv.outputs.at(0) + "_" + suffix)};
  graph.values[part.outputs[0]] = {};
  return part;
}

void replaceByConcat(ir::Graph &graph, size_t index, std::vector<ir::Node> nodes,
                     const std::vector<std::string> &partOutputs, int64_t axis) {
  const ir::Node &conv = graph.nodes.at(index);
  ir::Node concat{
      ir::freshName(graph, conv.name + "_concat"), "Concat", partOutputs, conv.outputs, {}};
  concat.attributes["axis"] = axis;
  nodes.push_back(std::move(concat));
  const auto at = graph.nodes.begin() + static_cast<std::ptrdiff_t>(index);
  graph.nodes.insert(graph.nodes.erase(at), nodes.begin(), nodes.end());
  ir::removeUnusedInitializers(graph);
}

int64_t perOutputChannel(const ir::Shape &shape) { return ir::numElements(shape) / shape.at(0); }

} // namespace nasc::nas
