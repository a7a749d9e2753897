// One benchmarked layer compiled by nasc's JIT with the default schedule.
#pragma once

#include "compiler/CompiledModel.h"
#include "ir/Graph.h"
#include "tools/bench/LayerSuite.h"
#include "tools/bench/LayerTensors.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nasc::bench {

/// The inference-ready graph (ir::prepareForInference) of one layer: input "x" -> node `name`
/// (Conv with kernel_shape, strides, pads, group; or Gemm with transB = 1) with initializers "w"
/// and "b" from `tensors` -> output "y". With `neighbourKernel` k > 0 (a conv only), the node
/// sits between two identity k x k convs ("x" -> "before" -> node -> "after" -> "y", stride 1,
/// pad k / 2, weights the identity matrix at the centre tap, no bias), which leave the values
/// unchanged and make its input and output activations of a network. Throws nasc::Error if a
/// pass rejects the graph.
ir::Graph layerGraph(const std::string &name, const LayerShape &shape, const LayerTensors &tensors,
                     int64_t neighbourKernel = 0);

/// layerGraph compiled by compiler::CompiledModel (host target, default trace), owning its input
/// (NCHW, tensors.x) and output (outputShape) buffers.
class NascLayer {
public:
  /// Compiles the layer for `threads` threads. With `kernelOnly` (a conv), compiles it between
  /// identity convs of layer.neighbourKernel (layerGraph) with the per-kernel profile, so that
  /// run() times the layer's kernel as in a network: reading its input and writing its output in
  /// the layout the default schedule keeps between kernels (nChw[x]c for a blocked conv), without
  /// the copies from and to NCHW a lone layer makes. Throws nasc::Error on a failed compilation or
  /// an output shape other than outputShape(layer.shape).
  NascLayer(const BenchLayer &layer, const LayerTensors &tensors, int threads, bool kernelOnly);
  /// Computes the output from the input (one call of the generated code, no checks); returns
  /// the wall seconds of the call, or with kernelOnly those of the layer's kernel in it.
  double run();
  /// The output of the last run, row-major NCHW (or 1 x K).
  const std::vector<float> &output() const { return output_; }

private:
  std::unique_ptr<compiler::CompiledModel> model_;
  std::vector<float> input_, output_;
  /// With kernelOnly, the index of the layer's kernel among the program's calls.
  std::optional<size_t> kernel_;
};

} // namespace nasc::bench
