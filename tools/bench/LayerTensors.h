// Seeded input, weights and bias of one benchmarked layer, shared by nasc and oneDNN.
#pragma once

#include "ir/Tensor.h"
#include "tools/bench/LayerSuite.h"

#include <cstdint>

namespace nasc::bench {

/// The data of one layer, in ONNX layouts: x (1, C, H, W) NCHW, or (1, C) for a Gemm; w (K,
/// C/group, kernel, kernel) OIHW, or (K, C) for a Gemm (transB = 1); b (K).
struct LayerTensors {
  ir::Tensor x, w, b;
};

/// x and b standard normal, w He-normal (ir/import/WeightInit.h), from seeds `seed`, `seed` + 1
/// and `seed` + 2.
LayerTensors layerTensors(const LayerShape &shape, uint64_t seed);

/// Shape of the layer's output: (1, K, OH, OW), or (1, K) for a Gemm.
ir::Shape outputShape(const LayerShape &shape);

} // namespace nasc::bench
