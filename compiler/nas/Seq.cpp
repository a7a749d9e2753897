#include "compiler/nas/Seq.h"

#include "compiler/nas/ConvLayer.h"
#include "compiler/nas/Group.h"
#include "compiler/nas/NeuralRegistry.h"
#include "compiler/nas/NeuralStep.h"
#include "compiler/nas/SeqScop.h"
#include "ir/passes/GraphEdit.h"

#include <algorithm>
#include <numeric>

namespace nasc::nas {

namespace {

/// A part of the output channels: [begin, begin + count), computed with `group` groups.
struct Part {
  int64_t begin, count, group;
};

ir::Tensor rows(const ir::Tensor &t, int64_t begin, int64_t count) {
  const int64_t row = t.size() / t.shape[0];
  ir::Shape shape = t.shape;
  shape[0] = count;
  ir::Tensor out = ir::Tensor::zeros(shape);
  std::copy_n(t.f.begin() + begin * row, count * row, out.f.begin());
  return out;
}

std::string addRows(ir::Graph &graph, const std::string &from, const Part &part,
                    const std::string &suffix) {
  const std::string name = ir::freshName(graph, from + suffix);
  graph.initializers[name] = rows(graph.initializers.at(from), part.begin, part.count);
  graph.values[name] = {ir::DType::Float32, graph.initializers[name].shape};
  return name;
}

/// Replaces Conv `layer` by one Conv per part and a Concat, then groups the parts.
void splitOutputs(ir::Graph &graph, const ConvLayer &layer, const std::vector<Part> &parts) {
  std::vector<ir::Node> replacement;
  std::vector<std::string> outputs;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string suffix = "part" + std::to_string(i);
    ir::Node part = convPart(graph, graph.nodes[layer.node], suffix);
    part.inputs[1] = addRows(graph, layer.weight, parts[i], "_" + suffix);
    if (!layer.bias.empty())
      part.inputs[2] = addRows(graph, layer.bias, parts[i], "_" + suffix);
    outputs.push_back(part.outputs[0]);
    replacement.push_back(std::move(part));
  }
  replaceByConcat(graph, layer.node, replacement, outputs, 1);
  for (size_t i = 0; i < parts.size(); ++i) {
    graph.values.erase(outputs[i]);
    if (parts[i].group > 1)
      group(graph, replacement[i].name, parts[i].group);
  }
}

ConvLayer denseLayer(const ir::Graph &graph, const std::string &node,
                     const std::string &transform) {
  const ConvLayer layer = convLayer(graph, node, transform);
  if (layer.group != 1)
    throw RefusedTransformation(refusal(
        graph, graph.nodes[layer.node], transform,
        "the Conv is already grouped (attribute 'group' = " + std::to_string(layer.group) + ")"));
  return layer;
}

} // namespace

void seq1(ir::Graph &graph, const std::string &node, const std::vector<int64_t> &groups) {
  std::string transform = "seq1(";
  for (size_t i = 0; i < groups.size(); ++i)
    transform += (i ? ", " : "") + std::to_string(groups[i]);
  transform += ")";
  const ConvLayer layer = denseLayer(graph, node, transform);
  const int64_t p = static_cast<int64_t>(groups.size());
  if (layer.K % p != 0)
    throw RefusedTransformation(refusal(graph, graph.nodes[layer.node], transform,
                                        std::to_string(p) + " parts do not divide the K = " +
                                            std::to_string(layer.K) + " output channels"));
  std::vector<Part> parts;
  for (int64_t i = 0; i < p; ++i)
    parts.push_back({i * layer.K / p, layer.K / p, groups[static_cast<size_t>(i)]});
  splitOutputs(graph, layer, parts);
}

void seq2(ir::Graph &graph, const std::string &node, int64_t u, int64_t G) {
  const std::string transform = "seq2(" + std::to_string(u) + ", " + std::to_string(G) + ")";
  const ConvLayer layer = denseLayer(graph, node, transform);
  if (u >= layer.K)
    throw RefusedTransformation(refusal(graph, graph.nodes[layer.node], transform,
                                        "u = " + std::to_string(u) + " leaves none of the K = " +
                                            std::to_string(layer.K) + " output channels to group"));
  splitOutputs(graph, layer, {{0, u, 1}, {u, layer.K - u, G}});
}

NeuralTransform seq1Transform() {
  NeuralTransform t;
  t.name = "seq1";
  t.parameters = {listParameter("groups")};
  t.listMin = 2;
  t.listMax = 16;
  t.listUsage = "G1,...,Gp";
  t.summary = "output channels split into p equal parts, part i a Conv with group G_i; a Concat "
              "joins them";
  t.flops = "× (1/p)·Σ_i 1/G_i";
  t.params = "W × (1/p)·Σ_i 1/G_i";
  t.refusedWhen = "the Conv is grouped; p does not divide K; a G_i does not divide C and K/p";
  t.example = {1, 2};
  t.choices = [](const ir::Graph &, const ConvLayer &conv) {
    // Two parts, G1 < G2 of 1, 2, 4, 8 dividing C and K/2.
    std::vector<std::vector<int64_t>> lists;
    if (conv.group != 1 || conv.K % 2 != 0)
      return lists;
    const std::vector<int64_t> groups = divisorsBetween(std::gcd(conv.C, conv.K / 2), 1, 8);
    for (size_t i = 0; i < groups.size(); ++i)
      for (size_t j = i + 1; j < groups.size(); ++j)
        lists.push_back({groups[i], groups[j]});
    return lists;
  };
  t.rewrite = [](ir::Graph &graph, const NeuralStep &step) { seq1(graph, step.node, step.args); };
  t.islForm = seqRewrite;
  return t;
}

NeuralTransform seq2Transform() {
  NeuralTransform t;
  t.name = "seq2";
  t.parameters = {scalarParameter("u"), scalarParameter("G")};
  t.summary = "the first u output channels stay a dense Conv, the other K − u a Conv with group "
              "G; a Concat joins them";
  t.flops = "× (u + (K − u)/G) / K";
  t.params = "W × (u + (K − u)/G) / K";
  t.refusedWhen = "the Conv is grouped; u is not in [1, K); G does not divide C and K − u";
  t.example = {2, 2};
  t.choices = [](const ir::Graph &, const ConvLayer &conv) {
    // u = K/2 dense output channels, G in 2..8 dividing C and K − u.
    std::vector<std::vector<int64_t>> lists;
    if (conv.group != 1 || conv.K < 2)
      return lists;
    const int64_t u = conv.K / 2;
    for (int64_t G : divisorsBetween(std::gcd(conv.C, conv.K - u), 2, 8))
      lists.push_back({u, G});
    return lists;
  };
  t.rewrite = [](ir::Graph &graph, const NeuralStep &step) {
    seq2(graph, step.node, step.args.at(0), step.args.at(1));
  };
  t.islForm = seqRewrite;
  return t;
}

} // namespace nasc::nas
