#include "compiler/nas/ExpansionRule.h"

#include "ir/passes/GraphEdit.h"

#include <algorithm>

namespace nasc::nas {

namespace {

/// The largest factor by which `resize` enlarges a spatial dim (dims 2..) of its input, rounded
/// down; 1 when it enlarges none.
int64_t expansionFactor(const ir::Graph &graph, const ir::Node &resize) {
  const ir::Shape &in = graph.shapeOf(resize.inputs.at(0));
  const ir::Shape &out = graph.shapeOf(resize.outputs.at(0));
  int64_t factor = 1;
  for (size_t d = 2; d < in.size() && d < out.size(); ++d)
    if (in[d] > 0 && out[d] > in[d])
      factor = std::max(factor, out[d] / in[d]);
  return factor;
}

/// Whether `reader` is a Conv of stride 1 whose window is at least 2 wide in every spatial dim.
bool remixes(const ir::Graph &graph, const ir::Node &reader) {
  if (reader.op_type != "Conv" || reader.inputs.size() < 2)
    return false;
  const ir::Shape &weight = graph.shapeOf(reader.inputs[1]);
  if (weight.size() < 3)
    return false;
  for (size_t d = 2; d < weight.size(); ++d)
    if (weight[d] < 2)
      return false;
  for (int64_t stride : reader.getInts("strides", {}))
    if (stride != 1)
      return false;
  return true;
}

std::string prefix(const ir::Node &resize, int64_t factor) {
  return "spatial expansion " + resize.describe() + " (x" + std::to_string(factor) + ")";
}

} // namespace

std::set<std::string> resizeNodes(const ir::Graph &graph) {
  std::set<std::string> names;
  for (const ir::Node &node : graph.nodes)
    if (node.op_type == "Resize")
      names.insert(node.name);
  return names;
}

std::optional<std::string> expansionRefusal(const std::set<std::string> &originalResizes,
                                            const ir::Graph &candidate) {
  for (const ir::Node &resize : candidate.nodes) {
    if (resize.op_type != "Resize" || originalResizes.count(resize.name))
      continue;
    const int64_t factor = expansionFactor(candidate, resize);
    if (factor == 1)
      continue;
    if (factor > kMaxExpansionFactor)
      return prefix(resize, factor) + ": more than x" + std::to_string(kMaxExpansionFactor) +
             " per dim, which the proxies cannot judge";
    const std::string &value = resize.outputs.at(0);
    if (ir::isGraphOutput(candidate, value))
      return prefix(resize, factor) + ": its output is a graph output";
    for (size_t reader : candidate.consumersOf(value))
      if (!remixes(candidate, candidate.nodes[reader]))
        return prefix(resize, factor) + ": read by " + candidate.nodes[reader].describe() +
               ", not a stride-1 Conv with a window of at least 2 per dim";
  }
  return std::nullopt;
}

} // namespace nasc::nas
