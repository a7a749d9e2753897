#include "compiler/nas/Seq3.h"

#include "compiler/nas/ConvLayer.h"
#include "compiler/nas/NeuralRegistry.h"
#include "compiler/nas/NeuralStep.h"
#include "compiler/nas/Seq3Scop.h"
#include "ir/passes/GraphEdit.h"
#include "ir/passes/WindowGeometry.h"

namespace nasc::nas {

namespace {

/// Input rows [lo, hi) of strip [a, b) and the padding it keeps along H.
struct Strip {
  int64_t lo, hi, padTop, padBottom;
};

Strip stripRows(const ir::WindowGeometry &g, int64_t H, int64_t R, int64_t a, int64_t b) {
  const int64_t first = a * g.strides[0] - g.padsBegin[0];
  const int64_t end = (b - 1) * g.strides[0] - g.padsBegin[0] + (R - 1) * g.dilations[0] + 1;
  const int64_t lo = std::max<int64_t>(0, first), hi = std::min(H, end);
  return {lo, hi, lo - first, end - hi};
}

std::string int64Constant(ir::Graph &graph, const std::string &base, int64_t value) {
  const std::string name = ir::freshName(graph, base);
  ir::Tensor t{ir::DType::Int64, {1}, {}, {value}};
  graph.initializers[name] = std::move(t);
  graph.values[name] = {ir::DType::Int64, {1}};
  return name;
}

std::string copyInitializer(ir::Graph &graph, const std::string &from, const std::string &suffix) {
  const std::string name = ir::freshName(graph, from + suffix);
  graph.initializers[name] = graph.initializers.at(from);
  graph.values[name] = graph.values.at(from);
  return name;
}

/// Slice(X, [lo], [hi], axes [2]) as a new node, returning its output; X itself when the strip
/// reads all of it.
std::string sliceRows(ir::Graph &graph, std::vector<ir::Node> &nodes, const std::string &x,
                      const Strip &strip, const std::string &name) {
  if (strip.lo == 0 && strip.hi == graph.shapeOf(x).at(2))
    return x;
  const std::string out = ir::freshName(graph, x + "_" + name);
  graph.values[out] = {};
  nodes.push_back(
      {ir::freshName(graph, name + "_rows"),
       "Slice",
       {x, int64Constant(graph, name + "_starts", strip.lo),
        int64Constant(graph, name + "_ends", strip.hi), int64Constant(graph, name + "_axes", 2)},
       {out},
       {}});
  return out;
}

} // namespace

void seq3(ir::Graph &graph, const std::string &node, int64_t P) {
  const std::string transform = "seq3(" + std::to_string(P) + ")";
  const ConvLayer layer = convLayer(graph, node, transform);
  const ir::Node conv = graph.nodes[layer.node];
  auto refuse = [&](const std::string &why) {
    throw RefusedTransformation(refusal(graph, conv, transform, why));
  };
  const ir::Shape &w = graph.shapeOf(layer.weight);
  if (P < 2)
    refuse("P must be at least 2");
  if (w.size() < 3)
    refuse("the Conv has no spatial dimension to split");
  const ir::Shape &x = graph.shapeOf(conv.inputs[0]);
  const ir::WindowGeometry geometry =
      ir::windowGeometry(conv, x, std::vector<int64_t>(w.begin() + 2, w.end()));
  const int64_t OH = geometry.outputSpatial[0];
  if (OH % P != 0)
    refuse(std::to_string(P) + " strips do not divide the " + std::to_string(OH) +
           " output rows of '" + conv.outputs.at(0) + "'");
  std::vector<ir::Node> replacement;
  std::vector<std::string> outputs;
  for (int64_t i = 0; i < P; ++i) {
    const std::string suffix = "_strip" + std::to_string(i);
    const Strip strip = stripRows(geometry, x[2], w[2], i * OH / P, (i + 1) * OH / P);
    ir::Node part = convPart(graph, conv, suffix.substr(1));
    part.inputs[0] = sliceRows(graph, replacement, conv.inputs[0], strip, part.name);
    part.inputs[1] = copyInitializer(graph, layer.weight, suffix);
    if (!layer.bias.empty())
      part.inputs[2] = copyInitializer(graph, layer.bias, suffix);
    std::vector<int64_t> pads = geometry.padsBegin;
    pads.insert(pads.end(), geometry.padsEnd.begin(), geometry.padsEnd.end());
    pads[0] = strip.padTop;
    pads[geometry.padsBegin.size()] = strip.padBottom;
    part.attributes.erase("auto_pad");
    part.attributes["pads"] = pads;
    outputs.push_back(part.outputs[0]);
    replacement.push_back(std::move(part));
  }
  replaceByConcat(graph, layer.node, replacement, outputs, 2);
}

NeuralTransform seq3Transform() {
  NeuralTransform t;
  t.name = "seq3";
  t.parameters = {scalarParameter("P")};
  t.summary = "output rows split into P strips, each a Conv with its own copy of W and B reading "
              "its input rows (halo included); a Concat on H joins them";
  t.flops = "unchanged";
  t.params = "W, B × P";
  t.refusedWhen = "P < 2; the Conv has no spatial dim; P does not divide OH";
  t.example = {2};
  t.choices = [](const ir::Graph &graph, const ConvLayer &conv) {
    // P in {2, 4} dividing OH, leaving at least 2 rows per strip.
    const std::vector<int64_t> extents = outputExtents(graph, conv);
    std::vector<std::vector<int64_t>> lists;
    for (int64_t P : {2, 4})
      if (!extents.empty() && extents[0] % P == 0 && extents[0] / P >= 2)
        lists.push_back({P});
    return lists;
  };
  t.rewrite = [](ir::Graph &graph, const NeuralStep &step) {
    seq3(graph, step.node, step.args.at(0));
  };
  t.islForm = [](isl::ctx ctx, const ir::Graph &graph, const NeuralStep &step) {
    return seq3Rewrite(ctx, graph, step.node, step.args.at(0));
  };
  return t;
}

} // namespace nasc::nas
