// MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool backward w.r.t. their input X.
#include "ir/ops/reference/ConvGeometry.h"
#include "ir/ops/reference/Gradients.h"

#include <algorithm>

namespace nasc::ir::reference {

namespace {

/// Window geometry of a pooling node on X (the forward already checked the attributes).
WindowGeometry poolWindow(const ir::Node &node, const ir::Tensor &x) {
  const std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  return windowGeometry(node, spatial, node.getInts("kernel_shape", {}),
                        node.getInt("ceil_mode", 0) == 1);
}

/// One pooling window: flat X indices of its elements inside the input, and the number of its
/// elements inside the padded input.
struct WindowElements {
  std::vector<int64_t> inside;
  int64_t insidePadded = 0;
};

/// Calls `visit(out, window)` for every output position (flat index into Y) of every plane.
template <typename Visit>
void forEachOutput(const ir::Node &node, const ir::Tensor &x, const WindowGeometry &g,
                   Visit visit) {
  const Window3 w = embedIn3(node, g);
  std::array<int64_t, 3> padsEnd{0, 0, 0};
  std::copy(g.padsEnd.begin(), g.padsEnd.end(), padsEnd.end() - g.padsEnd.size());
  const int64_t planes = x.shape[0] * x.shape[1];
  int64_t out = 0;
  WindowElements window;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t o0 = 0; o0 < w.output[0]; ++o0)
      for (int64_t o1 = 0; o1 < w.output[1]; ++o1)
        for (int64_t o2 = 0; o2 < w.output[2]; ++o2, ++out) {
          window.inside.clear();
          window.insidePadded = 0;
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
                window.insidePadded += insidePadded;
                if (inside)
                  window.inside.push_back(p * w.inputSize() +
                                          (i[0] * w.input[1] + i[1]) * w.input[2] + i[2]);
              }
          visit(out, window);
        }
}

InputGradients only(const ir::Node &node, ir::Tensor dx) {
  InputGradients grads(node.inputs.size());
  grads[0] = std::move(dx);
  return grads;
}

} // namespace

InputGradients maxPoolBackward(const BackwardArgs &args) {
  const ir::Tensor &x = floatInput(args.node, args.inputs, 0, "X");
  ir::Tensor dx = ir::Tensor::zeros(x.shape);
  forEachOutput(args.node, x, poolWindow(args.node, x),
                [&](int64_t out, const WindowElements &window) {
                  if (window.inside.empty())
                    return;
                  int64_t best = window.inside.front();
                  for (int64_t in : window.inside)
                    if (x.f[in] > x.f[best])
                      best = in;
                  dx.f[best] += args.dy.f[out];
                });
  return only(args.node, std::move(dx));
}

InputGradients averagePoolBackward(const BackwardArgs &args) {
  const ir::Tensor &x = floatInput(args.node, args.inputs, 0, "X");
  const bool countIncludePad = args.node.getInt("count_include_pad", 0) == 1;
  ir::Tensor dx = ir::Tensor::zeros(x.shape);
  forEachOutput(
      args.node, x, poolWindow(args.node, x), [&](int64_t out, const WindowElements &window) {
        const int64_t count = countIncludePad ? window.insidePadded
                                              : std::max<int64_t>(int64_t(window.inside.size()), 1);
        for (int64_t in : window.inside)
          dx.f[in] += args.dy.f[out] / static_cast<float>(count);
      });
  return only(args.node, std::move(dx));
}

InputGradients globalAveragePoolBackward(const BackwardArgs &args) {
  const ir::Tensor &x = floatInput(args.node, args.inputs, 0, "X");
  const int64_t planes = x.shape[0] * x.shape[1], plane = x.size() / std::max<int64_t>(planes, 1);
  ir::Tensor dx = ir::Tensor::zeros(x.shape);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t k = 0; k < plane; ++k)
      dx.f[p * plane + k] = args.dy.f[p] / static_cast<float>(plane);
  return only(args.node, std::move(dx));
}

InputGradients globalMaxPoolBackward(const BackwardArgs &args) {
  const ir::Tensor &x = floatInput(args.node, args.inputs, 0, "X");
  const int64_t planes = x.shape[0] * x.shape[1], plane = x.size() / std::max<int64_t>(planes, 1);
  ir::Tensor dx = ir::Tensor::zeros(x.shape);
  for (int64_t p = 0; p < planes && plane > 0; ++p) {
    const float *first = x.f.data() + p * plane;
    // std::max_element returns the first of equal maxima.
    dx.f[p * plane + (std::max_element(first, first + plane) - first)] = args.dy.f[p];
  }
  return only(args.node, std::move(dx));
}

} // namespace nasc::ir::reference
