// MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool forward on (N, C, spatial...)
// tensors.
#include "ir/ops/reference/ConvGeometry.h"
#include "ir/ops/reference/Ops.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace nasc::ir::reference {

namespace {

/// The pooling window of `node` on X: kernel_shape (required), strides, dilations, pads,
/// auto_pad and ceil_mode.
WindowGeometry poolGeometry(const ir::Node &node, const ir::Tensor &x) {
  if (x.shape.size() < 3)
    fail(node, "input X " + ir::shapeToString(x.shape) + " must have rank >= 3");
  if (!node.has("kernel_shape"))
    fail(node, "attribute 'kernel_shape' is missing");
  requireIntAttribute(node, "storage_order", 0);
  const std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  const int64_t ceilMode = node.getInt("ceil_mode", 0);
  if (ceilMode != 0 && ceilMode != 1)
    fail(node, "attribute 'ceil_mode' must be 0 or 1");
  return windowGeometry(node, spatial, node.getInts("kernel_shape", {}), ceilMode == 1);
}

ir::Shape pooledShape(const ir::Tensor &x, const WindowGeometry &g) {
  ir::Shape shape{x.shape[0], x.shape[1]};
  shape.insert(shape.end(), g.output.begin(), g.output.end());
  return shape;
}

/// Visits every output position of every (n, c) plane (flat index `out` into Y): calls
/// `reduce(out, in)` for each window element inside the input (flat index `in` into X), then
/// `finish(out, inPadded)` with the number of window elements inside the padded input.
template <typename Reduce, typename Finish>
void forEachWindow(const ir::Node &node, const ir::Tensor &x, const WindowGeometry &geometry,
                   const std::array<int64_t, 3> &padsEnd, Reduce reduce, Finish finish) {
  const Window3 w = embedIn3(node, geometry);
  const int64_t planes = x.shape[0] * x.shape[1];
  int64_t out = 0;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t o0 = 0; o0 < w.output[0]; ++o0)
      for (int64_t o1 = 0; o1 < w.output[1]; ++o1)
        for (int64_t o2 = 0; o2 < w.output[2]; ++o2, ++out) {
          int64_t inPadded = 0;
          for (int64_t r0 = 0; r0 < w.kernel[0]; ++r0)
            for (int64_t r1 = 0; r1 < w.kernel[1]; ++r1)
              for (int64_t r2 = 0; r2 < w.kernel[2]; ++r2) {
                const std::array<int64_t, 3> i{w.inputCoord(0, o0, r0), w.inputCoord(1, o1, r1),
                                               w.inputCoord(2, o2, r2)};
                bool inside = true, insidePadded = true;
                for (int d = 0; d < 3; ++d) {
                  inside = inside && i[d] >= 0 && i[d] < w.input[d];
                  insidePadded =
                      insidePadded && i[d] >= -w.padsBegin[d] && i[d] < w.input[d] + padsEnd[d];
                }
                inPadded += insidePadded;
                if (inside)
                  reduce(out, p * w.inputSize() + (i[0] * w.input[1] + i[1]) * w.input[2] + i[2]);
              }
          finish(out, inPadded);
        }
}

std::array<int64_t, 3> padsEndIn3(const WindowGeometry &g) {
  std::array<int64_t, 3> padsEnd{0, 0, 0};
  std::copy(g.padsEnd.begin(), g.padsEnd.end(), padsEnd.end() - g.padsEnd.size());
  return padsEnd;
}

/// Global pooling of X (N,C,D1..Dr) to Y (N,C,1..1): Y[n,c] = reducePlane(data of X[n,c], number
/// of elements of a plane).
template <typename ReducePlane>
OpOutputs globalPool(const ir::Node &node, const OpInputs &inputs, ReducePlane reducePlane) {
  const ir::Tensor &x = floatInput(node, inputs, 0, "X");
  if (x.shape.size() < 3)
    fail(node, "input X " + ir::shapeToString(x.shape) + " must have rank >= 3");
  ir::Shape shape(x.shape.size(), 1);
  shape[0] = x.shape[0];
  shape[1] = x.shape[1];
  const int64_t planes = x.shape[0] * x.shape[1], plane = x.size() / std::max<int64_t>(planes, 1);
  ir::Tensor y = ir::Tensor::zeros(shape);
  for (int64_t p = 0; p < planes; ++p)
    y.f[p] = reducePlane(x.f.data() + p * plane, plane);
  return {std::move(y)};
}

} // namespace

OpOutputs maxPool(const ir::Node &node, const OpInputs &inputs) {
  requireAtMostOutputs(node, 1);
  const ir::Tensor &x = floatInput(node, inputs, 0, "X");
  const WindowGeometry g = poolGeometry(node, x);
  ir::Tensor y = ir::Tensor::zeros(pooledShape(x, g), -std::numeric_limits<float>::infinity());
  forEachWindow(
      node, x, g, padsEndIn3(g),
      [&](int64_t out, int64_t in) { y.f[out] = std::max(y.f[out], x.f[in]); },
      [](int64_t, int64_t) {});
  return {std::move(y)};
}

OpOutputs averagePool(const ir::Node &node, const OpInputs &inputs) {
  requireAtMostOutputs(node, 1);
  const ir::Tensor &x = floatInput(node, inputs, 0, "X");
  const WindowGeometry g = poolGeometry(node, x);
  const int64_t countIncludePad = node.getInt("count_include_pad", 0);
  if (countIncludePad != 0 && countIncludePad != 1)
    fail(node, "attribute 'count_include_pad' must be 0 or 1");
  ir::Tensor y = ir::Tensor::zeros(pooledShape(x, g));
  int64_t inside = 0;
  forEachWindow(
      node, x, g, padsEndIn3(g),
      [&](int64_t out, int64_t in) {
        y.f[out] += x.f[in];
        ++inside;
      },
      [&](int64_t out, int64_t inPadded) {
        y.f[out] /= static_cast<float>(countIncludePad ? inPadded : std::max<int64_t>(inside, 1));
        inside = 0;
      });
  return {std::move(y)};
}

OpOutputs globalAveragePool(const ir::Node &node, const OpInputs &inputs) {
  return globalPool(node, inputs, [](const float *data, int64_t n) {
    const double sum = std::accumulate(data, data + n, 0.0);
    return static_cast<float>(sum / static_cast<double>(n));
  });
}

OpOutputs globalMaxPool(const ir::Node &node, const OpInputs &inputs) {
  return globalPool(node, inputs, [](const float *data, int64_t n) {
    return std::accumulate(data, data + n, -std::numeric_limits<float>::infinity(),
                           [](float a, float b) { return std::max(a, b); });
  });
}

} // namespace nasc::ir::reference
