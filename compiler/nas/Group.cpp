#include "compiler/nas/Group.h"

#include "compiler/nas/ConvLayer.h"
#include "compiler/nas/GroupScop.h"
#include "compiler/nas/NeuralRegistry.h"
#include "compiler/nas/NeuralStep.h"

#include <numeric>

namespace nasc::nas {

namespace {

/// W' (K, C/newGroup, k...) with W'[k, c', .] = W[k, first(k) + c', .], where first(k) is the
/// offset of k's new group inside k's old group slice: g_new(k)·C/newGroup − g_old(k)·C/oldGroup.
ir::Tensor diagonalBlocks(const ir::Tensor &w, const ConvLayer &layer, int64_t newGroup) {
  const int64_t oldSlice = layer.C / layer.group, newSlice = layer.C / newGroup;
  const int64_t window = perOutputChannel(w.shape) / oldSlice;
  ir::Shape shape = w.shape;
  shape[1] = newSlice;
  ir::Tensor out = ir::Tensor::zeros(shape);
  for (int64_t k = 0; k < layer.K; ++k) {
    const int64_t gOld = k / (layer.K / layer.group), gNew = k / (layer.K / newGroup);
    const int64_t first = gNew * newSlice - gOld * oldSlice;
    for (int64_t c = 0; c < newSlice; ++c)
      for (int64_t s = 0; s < window; ++s)
        out.f[static_cast<size_t>((k * newSlice + c) * window + s)] =
            w.f[static_cast<size_t>((k * oldSlice + first + c) * window + s)];
  }
  return out;
}

void regroup(ir::Graph &graph, const ConvLayer &layer, int64_t newGroup,
             const std::string &transform) {
  ir::Node &node = graph.nodes[layer.node];
  if (layer.C % newGroup != 0 || layer.K % newGroup != 0)
    throw RefusedTransformation(refusal(graph, node, transform,
                                        "attribute 'group' would become " +
                                            std::to_string(newGroup) + ", which does not divide " +
                                            "the input channels C = " + std::to_string(layer.C) +
                                            " and output channels K = " + std::to_string(layer.K)));
  ir::Tensor &w = graph.initializers.at(layer.weight);
  w = diagonalBlocks(w, layer, newGroup);
  graph.values[layer.weight].shape = w.shape;
  node.attributes["group"] = newGroup;
}

} // namespace

void group(ir::Graph &graph, const std::string &node, int64_t G) {
  const std::string transform = "group(" + std::to_string(G) + ")";
  const ConvLayer layer = convLayer(graph, node, transform);
  regroup(graph, layer, layer.group * G, transform);
}

void depthwise(ir::Graph &graph, const std::string &node) {
  const ConvLayer layer = convLayer(graph, node, "depthwise");
  if (layer.K % layer.C != 0)
    throw RefusedTransformation(
        refusal(graph, graph.nodes[layer.node], "depthwise",
                "output channels K = " + std::to_string(layer.K) +
                    " are not a multiple of the input channels C = " + std::to_string(layer.C)));
  regroup(graph, layer, layer.C, "depthwise");
}

NeuralTransform groupTransform() {
  NeuralTransform t;
  t.name = "group";
  t.parameters = {scalarParameter("G")};
  t.summary = "output channels k become (g, k'), input channels c become (g', c'), only g = g' "
              "kept: attribute `group` × G, W keeps its diagonal blocks";
  t.flops = "÷ G";
  t.params = "W ÷ G";
  t.refusedWhen = "group·G does not divide C and K";
  t.example = {2};
  t.choices = [](const ir::Graph &, const ConvLayer &conv) {
    // group·G divides C and K, short of one input channel per group (depthwise's).
    std::vector<std::vector<int64_t>> lists;
    for (int64_t G :
         divisorsBetween(std::gcd(conv.C, conv.K) / conv.group, 2, conv.C / conv.group - 1))
      lists.push_back({G});
    return lists;
  };
  t.rewrite = [](ir::Graph &graph, const NeuralStep &step) {
    group(graph, step.node, step.args.at(0));
  };
  t.islForm = [](isl::ctx ctx, const ir::Graph &graph, const NeuralStep &step) {
    return std::vector<ScopRewrite>{groupRewrite(ctx, graph, step.node, step.args.at(0))};
  };
  return t;
}

NeuralTransform depthwiseTransform() {
  NeuralTransform t;
  t.name = "depthwise";
  t.summary = "group(C / group): one input channel per group, channel multiplier K / C";
  t.flops = "÷ (C / group)";
  t.params = "W ÷ (C / group)";
  t.refusedWhen = "C does not divide K";
  t.choices = [](const ir::Graph &, const ConvLayer &conv) {
    return conv.K % conv.C == 0 && conv.group < conv.C ? std::vector<std::vector<int64_t>>{{}}
                                                       : std::vector<std::vector<int64_t>>{};
  };
  t.rewrite = [](ir::Graph &graph, const NeuralStep &step) { depthwise(graph, step.node); };
  t.islForm = [](isl::ctx ctx, const ir::Graph &graph, const NeuralStep &step) {
    const int64_t C = convLayer(graph, step.node, step.toString()).C;
    return std::vector<ScopRewrite>{groupRewrite(ctx, graph, step.node, C)};
  };
  return t;
}

} // namespace nasc::nas
