// Small graphs around one 3x3 convolution, built in memory, for the tests of the neural
// transformations and their isl forms.
#pragma once

#include "ir/Graph.h"
#include "ir/passes/Passes.h"
#include "test/support/RandomTensor.h"

#include <cstdint>
#include <string>

namespace nasc::test {

/// The one Conv of convGraph: input x (N, C, H, W), K output channels, 3x3, `pad` on every side.
struct ConvSpec {
  ir::Shape x;
  int64_t K = 0, stride = 1, pad = 1;
};

/// The graph `source`: x (spec.x) -> Conv "conv" (W "w" uniform(±0.3) seed 1, bias "b" seed 2)
/// -> `output`, which is the graph output "y" unless the caller adds nodes after it (and then
/// sets g.outputs). Shapes are inferred by prepared().
inline ir::Graph convGraph(const std::string &source, const ConvSpec &spec,
                           const std::string &output = "y") {
  ir::Graph g;
  g.source = source;
  g.inputs = {"x"};
  g.outputs = {"y"};
  g.values["x"] = {ir::DType::Float32, spec.x};
  g.initializers["w"] = uniformTensor({spec.K, spec.x.at(1), 3, 3}, 1, 0.3f);
  g.initializers["b"] = uniformTensor({spec.K}, 2, 0.3f);
  const int64_t p = spec.pad, s = spec.stride;
  g.nodes = {
      {"conv",
       "Conv",
       {"x", "w", "b"},
       {output},
       {{"pads", std::vector<int64_t>{p, p, p, p}}, {"strides", std::vector<int64_t>{s, s}}}}};
  return g;
}

/// Appends BatchNormalization "bn" from `input` to `output` over `channels`: scale "s", B
/// "beta", mean "m" uniform (±0.5, seeds 3, 4, 5), var "v" = 2.
inline void addBatchNorm(ir::Graph &g, const std::string &input, const std::string &output,
                         int64_t channels) {
  g.initializers["s"] = uniformTensor({channels}, 3, 0.5f);
  g.initializers["beta"] = uniformTensor({channels}, 4, 0.5f);
  g.initializers["m"] = uniformTensor({channels}, 5, 0.5f);
  g.initializers["v"] = ir::Tensor::zeros({channels}, 2.0f);
  g.nodes.push_back({"bn", "BatchNormalization", {input, "s", "beta", "m", "v"}, {output}, {}});
}

/// `g` with its initializers' shapes recorded and ir::prepareForTraining run (static shapes).
inline ir::Graph prepared(ir::Graph g) {
  for (const auto &[name, tensor] : g.initializers)
    g.values[name] = {ir::DType::Float32, tensor.shape};
  ir::prepareForTraining(g);
  return g;
}

} // namespace nasc::test
