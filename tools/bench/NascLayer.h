// One benchmarked layer compiled by nasc's JIT with the default schedule.
#pragma once

#include "compiler/CompiledModel.h"
#include "ir/Graph.h"
#include "tools/bench/LayerSuite.h"
#include "tools/bench/LayerTensors.h"

#include <memory>
#include <string>
#include <vector>

namespace nasc::bench {

/// The inference-ready graph (ir::prepareForInference) of one layer: input "x" -> node `name`
/// (Conv with kernel_shape, strides, pads, group; or Gemm with transB = 1) with initializers "w"
/// and "b" from `tensors` -> output "y". Throws nasc::Error if a pass rejects the graph.
ir::Graph layerGraph(const std::string &name, const LayerShape &shape, const LayerTensors &tensors);

/// layerGraph compiled by compiler::CompiledModel (host target, default trace), owning its input
/// (NCHW, tensors.x) and output (outputShape) buffers.
class NascLayer {
public:
  /// Compiles the layer for `threads` threads. Throws nasc::Error on a failed compilation or an
  /// output shape other than outputShape(layer.shape).
  NascLayer(const BenchLayer &layer, const LayerTensors &tensors, int threads);
  /// Computes the output from the input (one call of the generated code, no checks).
  void run();
  /// The output of the last run, row-major NCHW (or 1 x K).
  const std::vector<float> &output() const { return output_; }

private:
  std::unique_ptr<compiler::CompiledModel> model_;
  std::vector<float> input_, output_;
};

} // namespace nasc::bench
