// lowerGraph: the dispatch of each node (or fused Conv chain) to its op family's lowering.
#include "ir/lower/Lower.h"

#include "ir/Error.h"
#include "ir/lower/Fusion.h"
#include "ir/lower/LowerContext.h"
#include "ir/lower/Ops.h"

#include <functional>
#include <map>

namespace nasc::ir {

namespace {

using lower::LowerContext;
using NodeLowering = std::function<void(LowerContext &, const Node &)>;

const std::map<std::string, NodeLowering> &nodeLowerings() {
  static const std::map<std::string, NodeLowering> table{
      {"MaxPool", lower::lowerMaxPool},
      {"AveragePool", lower::lowerAveragePool},
      {"GlobalAveragePool", lower::lowerGlobalAveragePool},
      {"GlobalMaxPool", lower::lowerGlobalMaxPool},
      {"BatchNormalization", lower::lowerBatchNormalization},
      {"Relu", lower::lowerRelu},
      {"Clip", lower::lowerClip},
      {"Add", lower::lowerBinary},
      {"Sub", lower::lowerBinary},
      {"Mul", lower::lowerBinary},
      {"Div", lower::lowerBinary},
      {"Gemm", lower::lowerGemm},
      {"MatMul", lower::lowerMatMul},
      {"Concat", lower::lowerConcat},
      {"Flatten", lower::lowerReshape},
      {"Reshape", lower::lowerReshape},
      {"Squeeze", lower::lowerReshape},
      {"Unsqueeze", lower::lowerReshape},
      {"Identity", lower::lowerReshape},
      {"Slice", lower::lowerSlice},
      {"Resize", lower::lowerResize},
  };
  return table;
}

/// Copies into the Output buffers of graph outputs that no node produces (graph inputs and
/// initializers).
void copyUnproducedOutputs(LowerContext &ctx) {
  const Graph &g = ctx.graph();
  for (size_t k = 0; k < g.outputs.size(); ++k)
    if (!g.producerOf(g.outputs[k]))
      lower::lowerCopy(ctx, "copy_" + g.outputs[k], g.outputs[k], ctx.program().outputs[k], {});
}

} // namespace

Program lowerGraph(const Graph &graph) {
  LowerContext ctx(graph);
  std::map<size_t, lower::ConvFusion> fusionAt;
  std::vector<bool> fused(graph.nodes.size(), false);
  for (const lower::ConvFusion &f : lower::planConvFusion(graph)) {
    fusionAt[f.last()] = f;
    for (auto k : {std::optional<size_t>(f.conv), f.add, f.relu})
      if (k && *k != f.last())
        fused[*k] = true;
  }
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const Node &node = graph.nodes[k];
    if (auto it = fusionAt.find(k); it != fusionAt.end()) {
      lower::lowerConv(ctx, it->second);
      continue;
    }
    if (fused[k])
      continue;
    auto it = nodeLowerings().find(node.op_type);
    if (it == nodeLowerings().end())
      throw Error(ctx.where(node, "op type '" + node.op_type + "' is not supported"));
    it->second(ctx, node);
  }
  copyUnproducedOutputs(ctx);
  return ctx.take();
}

} // namespace nasc::ir
