#include "compiler/nas/Bottleneck.h"

#include "compiler/nas/BottleneckScop.h"
#include "compiler/nas/ConvLayer.h"
#include "compiler/nas/NeuralRegistry.h"
#include "compiler/nas/NeuralStep.h"
#include "ir/ops/OpDef.h"
#include "ir/passes/GraphEdit.h"

#include <algorithm>

namespace nasc::nas {

namespace {

/// The entries of `t` whose index along `axis` is in `keep`, in that order.
ir::Tensor gather(const ir::Tensor &t, size_t axis, const std::vector<int64_t> &keep) {
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d)
    outer *= t.shape[d];
  for (size_t d = axis + 1; d < t.shape.size(); ++d)
    inner *= t.shape[d];
  ir::Shape shape = t.shape;
  shape[axis] = static_cast<int64_t>(keep.size());
  ir::Tensor out = ir::Tensor::zeros(shape);
  size_t next = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k : keep)
      for (int64_t i = 0; i < inner; ++i)
        out.f[next++] = t.f[static_cast<size_t>((o * t.shape[axis] + k) * inner + i)];
  return out;
}

/// Replaces initializer `name` by its gather along `axis`.
void gatherInitializer(ir::Graph &graph, const std::string &name, size_t axis,
                       const std::vector<int64_t> &keep) {
  ir::Tensor &t = graph.initializers.at(name);
  t = gather(t, axis, keep);
  graph.values[name].shape = t.shape;
}

struct Bottleneck {
  ir::Graph &graph;
  std::string transform;

  [[noreturn]] void refuse(const ir::Node &node, const std::string &why) const {
    throw RefusedTransformation(refusal(graph, node, transform, why));
  }

  /// The initializer at input `input` of `node`, read by no other node.
  std::string ownInitializer(const ir::Node &node, size_t input) const {
    const std::string &name = node.inputs.at(input);
    if (!graph.isInitializer(name) || graph.consumersOf(name).size() != 1)
      refuse(node, "input '" + name + "' must be an initializer read only by this node");
    return name;
  }

  void checkNotOutput(const ir::Node &producer, const std::string &value) const {
    if (ir::isGraphOutput(graph, value))
      refuse(producer, "value '" + value + "' is a graph output, whose shape must not change");
  }

  /// Follows `value`, of which only the channels `keep` (axis 1) remain, through its consumers.
  void follow(const ir::Node &producer, const std::string &value,
              const std::vector<int64_t> &keep) {
    checkNotOutput(producer, value);
    for (size_t index : graph.consumersOf(value))
      followInto(index, value, keep);
  }

  void followInto(size_t index, const std::string &value, const std::vector<int64_t> &keep) {
    const ir::Node node = graph.nodes[index];
    if (node.inputs.at(0) != value)
      refuse(node, "reads the narrowed value '" + value + "' as another input than its first");
    if (node.op_type == "BatchNormalization") {
      for (size_t input = 1; input < 5; ++input)
        gatherInitializer(graph, ownInitializer(node, input), 0, keep);
      follow(node, node.outputs.at(0), keep);
    } else if (ir::opHas(node.op_type, &ir::OpDef::perChannel)) {
      follow(node, node.outputs.at(0), keep);
    } else if (node.op_type == "Conv") {
      if (node.getInt("group", 1) != 1)
        refuse(node, "its input '" + value + "' narrows but it is a grouped Conv; apply the " +
                         "bottleneck before grouping it");
      gatherInitializer(graph, ownInitializer(node, 1), 1, keep);
    } else if (node.op_type == "Flatten" && node.getInt("axis", 1) == 1) {
      followFlatten(node, value, keep);
    } else {
      refuse(node, "reads the narrowed value '" + value + "' but cannot follow a channel " +
                       "change (the other inputs of a residual Add or a Concat keep theirs); " +
                       "bottleneck a convolution inside a block");
    }
  }

  /// Flatten (N, C, ...) -> (N, C·inner): feature c·inner + p survives when c does; every reader
  /// must be a Gemm reading it as A, whose B keeps the matching rows (columns with transB).
  void followFlatten(const ir::Node &flatten, const std::string &value,
                     const std::vector<int64_t> &keep) {
    const ir::Shape &shape = graph.shapeOf(value);
    int64_t inner = 1;
    for (size_t d = 2; d < shape.size(); ++d)
      inner *= shape[d];
    std::vector<int64_t> features;
    for (int64_t c : keep)
      for (int64_t p = 0; p < inner; ++p)
        features.push_back(c * inner + p);
    const std::string &flat = flatten.outputs.at(0);
    checkNotOutput(flatten, flat);
    for (size_t index : graph.consumersOf(flat)) {
      const ir::Node gemm = graph.nodes[index];
      if (gemm.op_type != "Gemm" || gemm.inputs.at(0) != flat || gemm.getInt("transA", 0) != 0)
        refuse(gemm, "reads the flattened narrowed value '" + flat + "'; only a Gemm (transA 0) " +
                         "can follow it");
      gatherInitializer(graph, ownInitializer(gemm, 1), gemm.getInt("transB", 0) ? 1 : 0, features);
    }
  }
};

} // namespace

void bottleneck(ir::Graph &graph, const std::string &node, int64_t B) {
  const std::string transform = "bottleneck(" + std::to_string(B) + ")";
  const ConvLayer layer = convLayer(graph, node, transform);
  const ir::Node conv = graph.nodes[layer.node];
  const int64_t perGroup = layer.K / layer.group;
  if (perGroup % B != 0)
    throw RefusedTransformation(
        refusal(graph, conv, transform,
                "B = " + std::to_string(B) + " does not divide the " + std::to_string(perGroup) +
                    " output channels per group (K = " + std::to_string(layer.K) +
                    ", attribute 'group' = " + std::to_string(layer.group) + ")"));
  std::vector<int64_t> keep;
  for (int64_t g = 0; g < layer.group; ++g)
    for (int64_t j = 0; j < perGroup / B; ++j)
      keep.push_back(g * perGroup + j);
  gatherInitializer(graph, layer.weight, 0, keep);
  if (!layer.bias.empty())
    gatherInitializer(graph, layer.bias, 0, keep);
  Bottleneck{graph, transform}.follow(conv, conv.outputs.at(0), keep);
}

NeuralTransform bottleneckTransform() {
  NeuralTransform t;
  t.name = "bottleneck";
  t.parameters = {scalarParameter("B")};
  t.summary = "output channels K become K/B (the first K/(B·group) of each group); the consumers "
              "follow: BatchNormalization, per-channel ops, a Conv of group 1 (its input "
              "channels), Flatten into Gemm (its features)";
  t.flops = "÷ B, and ÷ B for each consumer Conv";
  t.params = "W, B ÷ B; each consumer's W ÷ B";
  t.refusedWhen = "K/(B·group) is not a positive integer; the value reaches a graph output, a "
                  "grouped Conv or another consumer (a residual Add, a Concat)";
  t.example = {2};
  t.choices = [](const ir::Graph &, const ConvLayer &conv) {
    // B in 2..8 leaving at least 2 output channels per group.
    std::vector<std::vector<int64_t>> lists;
    const int64_t perGroup = conv.K / conv.group;
    for (int64_t B : divisorsBetween(perGroup, 2, std::min<int64_t>(8, perGroup / 2)))
      lists.push_back({B});
    return lists;
  };
  t.rewrite = [](ir::Graph &graph, const NeuralStep &step) {
    bottleneck(graph, step.node, step.args.at(0));
  };
  t.islForm = [](isl::ctx ctx, const ir::Graph &graph, const NeuralStep &step) {
    return bottleneckRewrite(ctx, graph, step.node, step.args.at(0));
  };
  return t;
}

} // namespace nasc::nas
