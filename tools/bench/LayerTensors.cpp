#include "tools/bench/LayerTensors.h"

#include "ir/import/WeightInit.h"

namespace nasc::bench {

namespace {

/// A float32 tensor of `shape` with standard normal values (ir::standardNormals(seed)).
ir::Tensor normalTensor(const ir::Shape &shape, uint64_t seed) {
  ir::Tensor t = ir::Tensor::zeros(shape);
  std::vector<double> values = ir::standardNormals(t.f.size(), seed);
  for (size_t i = 0; i < values.size(); ++i)
    t.f[i] = static_cast<float>(values[i]);
  return t;
}

} // namespace

LayerTensors layerTensors(const LayerShape &shape, uint64_t seed) {
  ir::Shape x = shape.gemm ? ir::Shape{1, shape.C} : ir::Shape{1, shape.C, shape.H, shape.W};
  ir::Shape w = shape.gemm ? ir::Shape{shape.K, shape.C}
                           : ir::Shape{shape.K, shape.C / shape.group, shape.kernel, shape.kernel};
  return {normalTensor(x, seed), ir::heNormal(w, seed + 1), normalTensor({shape.K}, seed + 2)};
}

ir::Shape outputShape(const LayerShape &shape) {
  if (shape.gemm)
    return {1, shape.K};
  return {1, shape.K, shape.outH(), shape.outW()};
}

} // namespace nasc::bench
