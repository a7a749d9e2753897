#include "compiler/nas/SpatialBottleneck.h"

#include "compiler/nas/ConvLayer.h"
#include "compiler/nas/NeuralRegistry.h"
#include "compiler/nas/NeuralStep.h"
#include "compiler/nas/SpatialBottleneckScop.h"
#include "ir/ops/OpDef.h"
#include "ir/passes/GraphEdit.h"
#include "ir/passes/WindowGeometry.h"

#include <algorithm>

namespace nasc::nas {

namespace {

/// Writes the Conv's resolved pads explicitly (auto_pad dropped) and multiplies its strides by S.
void strideBy(ir::Node &conv, const ir::WindowGeometry &geometry, int64_t S) {
  std::vector<int64_t> pads = geometry.padsBegin, strides;
  pads.insert(pads.end(), geometry.padsEnd.begin(), geometry.padsEnd.end());
  for (int64_t stride : geometry.strides)
    strides.push_back(stride * S);
  conv.attributes.erase("auto_pad");
  conv.attributes["pads"] = pads;
  conv.attributes["strides"] = strides;
}

/// Inserts Resize(nearest, scales [1, 1, S...]) producing `value` from a new value written by
/// `value`'s producer instead.
void insertExpansion(ir::Graph &graph, const std::string &convName, const std::string &value,
                     int64_t S) {
  const size_t producer = *graph.producerOf(value);
  const size_t rank = graph.shapeOf(value).size();
  const std::string strided = ir::freshName(graph, value + "_strided");
  const std::string scales = ir::freshName(graph, convName + "_expand_scales");
  ir::Tensor factors = ir::Tensor::zeros({static_cast<int64_t>(rank)}, static_cast<float>(S));
  factors.f[0] = factors.f[1] = 1.0f;
  graph.initializers[scales] = std::move(factors);
  graph.values[scales] = {ir::DType::Float32, {static_cast<int64_t>(rank)}};
  ir::Node resize{
      ir::freshName(graph, convName + "_expand"), "Resize", {strided, "", scales}, {value}, {}};
  resize.attributes["mode"] = std::string("nearest");
  resize.attributes["coordinate_transformation_mode"] = std::string("asymmetric");
  resize.attributes["nearest_mode"] = std::string("floor");
  graph.nodes[producer].outputs[0] = strided;
  graph.nodes.insert(graph.nodes.begin() + static_cast<std::ptrdiff_t>(producer) + 1,
                     std::move(resize));
}

} // namespace

std::string expansionPoint(const ir::Graph &graph, std::string value) {
  while (!ir::isGraphOutput(graph, value)) {
    const std::vector<size_t> consumers = graph.consumersOf(value);
    if (consumers.size() != 1)
      break;
    const ir::Node &next = graph.nodes[consumers[0]];
    const bool commutes = next.op_type == "BatchNormalization" ||
                          ir::opHas(next.op_type, &ir::OpDef::unaryElementwise);
    if (!commutes || next.inputs.at(0) != value || next.outputs.size() != 1)
      break;
    value = next.outputs[0];
  }
  return value;
}

void spatialBottleneck(ir::Graph &graph, const std::string &node, int64_t S) {
  const std::string transform = "spatial_bottleneck(" + std::to_string(S) + ")";
  const ConvLayer layer = convLayer(graph, node, transform);
  ir::Node &conv = graph.nodes[layer.node];
  auto refuse = [&](const std::string &why) {
    throw RefusedTransformation(refusal(graph, conv, transform, why));
  };
  if (S < 2)
    refuse("S must be at least 2");
  const ir::Shape &w = graph.shapeOf(layer.weight);
  const ir::WindowGeometry geometry = ir::windowGeometry(
      conv, graph.shapeOf(conv.inputs[0]), std::vector<int64_t>(w.begin() + 2, w.end()));
  for (size_t d = 0; d < geometry.outputSpatial.size(); ++d)
    if (geometry.outputSpatial[d] % S != 0)
      refuse("S = " + std::to_string(S) + " does not divide the output extent " +
             std::to_string(geometry.outputSpatial[d]) + " of spatial dim " + std::to_string(d) +
             " of '" + conv.outputs.at(0) + "'");
  strideBy(conv, geometry, S);
  insertExpansion(graph, node, expansionPoint(graph, conv.outputs.at(0)), S);
}

NeuralTransform spatialBottleneckTransform() {
  NeuralTransform t;
  t.name = "spatial_bottleneck";
  t.parameters = {scalarParameter("S")};
  t.summary = "strides × S, then a nearest-neighbour Resize × S expands the output back (Peng et "
              "al. 2018), placed past the BatchNormalization / elementwise chain that reads it";
  t.flops = "÷ S^d (d spatial dims)";
  t.params = "unchanged";
  t.refusedWhen = "S < 2; S does not divide an output extent";
  t.example = {2};
  t.choices = [](const ir::Graph &graph, const ConvLayer &conv) {
    // S in {2, 4} dividing every output extent, leaving at least 2 points per dim.
    const std::vector<int64_t> extents = outputExtents(graph, conv);
    std::vector<std::vector<int64_t>> lists;
    for (int64_t S : {2, 4})
      if (!extents.empty() && std::all_of(extents.begin(), extents.end(),
                                          [&](int64_t e) { return e % S == 0 && e / S >= 2; }))
        lists.push_back({S});
    return lists;
  };
  t.rewrite = [](ir::Graph &graph, const NeuralStep &step) {
    spatialBottleneck(graph, step.node, step.args.at(0));
  };
  t.islForm = [](isl::ctx ctx, const ir::Graph &graph, const NeuralStep &step) {
    return spatialBottleneckRewrite(ctx, graph, step.node, step.args.at(0));
  };
  return t;
}

} // namespace nasc::nas
