#include "compiler/search/ConvWorkload.h"

#include "ir/Error.h"
#include "ir/passes/Passes.h"

namespace nasc::search {

namespace {

std::string joined(const std::vector<int64_t> &values) {
  std::string text;
  for (int64_t v : values)
    text += (text.empty() ? "" : ",") + std::to_string(v);
  return text;
}

/// The key of Conv `node` of `graph`: its input and weight shapes, bias and the attributes that
/// shape the loop nest (ONNX defaults written out, so equal Convs have equal keys).
std::string workloadKey(const ir::Graph &graph, const ir::Node &node) {
  const ir::Shape &x = graph.shapeOf(node.inputs.at(0)), &w = graph.shapeOf(node.inputs.at(1));
  const size_t spatial = x.size() - 2;
  return "Conv x=" + ir::shapeToString(x) + " w=" + ir::shapeToString(w) +
         " group=" + std::to_string(node.getInt("group", 1)) +
         " strides=" + joined(node.getInts("strides", std::vector<int64_t>(spatial, 1))) +
         " pads=" + joined(node.getInts("pads", std::vector<int64_t>(2 * spatial, 0))) +
         " dilations=" + joined(node.getInts("dilations", std::vector<int64_t>(spatial, 1))) +
         (node.has("auto_pad") ? " auto_pad=" + node.getString("auto_pad", "") : "");
}

/// x -> `node` with a bias (its own, else zeros: the one a folded BatchNormalization gives) ->
/// Relu -> y, its initializers copied.
ir::Graph workloadGraph(const ir::Graph &graph, const ir::Node &node, const std::string &key) {
  ir::Graph g;
  g.name = key;
  g.source = graph.source + ": node '" + node.name + "' (" + key + ")";
  g.inputs = {"x"};
  g.outputs = {"y"};
  g.values["x"] = {ir::DType::Float32, graph.shapeOf(node.inputs[0])};
  ir::Node conv = node;
  conv.inputs[0] = "x";
  conv.outputs = {"c"};
  conv.inputs.resize(3);
  for (size_t i = 1; i < 3; ++i)
    if (!conv.inputs[i].empty())
      g.initializers[conv.inputs[i]] = graph.initializers.at(conv.inputs[i]);
  if (conv.inputs[2].empty()) {
    conv.inputs[2] = node.name + ".workload_bias";
    g.initializers[conv.inputs[2]] = ir::Tensor::zeros({graph.shapeOf(node.inputs[1]).at(0)});
  }
  for (size_t i = 1; i < 3; ++i)
    g.values[conv.inputs[i]] = {ir::DType::Float32, g.initializers.at(conv.inputs[i]).shape};
  g.nodes = {conv, {"relu", "Relu", {"c"}, {"y"}, {}}};
  ir::prepareForInference(g);
  return g;
}

} // namespace

std::vector<ConvWorkload> convWorkloads(const ir::Graph &graph) {
  std::vector<ConvWorkload> workloads;
  for (const ir::Node &node : graph.nodes) {
    if (node.op_type != "Conv")
      continue;
    if (!graph.isInitializer(node.inputs.at(1)))
      throw Error(graph.source + ": " + node.describe() + ": input 'W' is not an initializer");
    const std::string key = workloadKey(graph, node);
    workloads.push_back({node.name, key, workloadGraph(graph, node, key)});
  }
  return workloads;
}

} // namespace nasc::search
