// Conv forward: im2col of each image and group, then one Eigen matrix product.
#include "ir/ops/reference/Im2col.h"
#include "ir/ops/reference/Ops.h"

namespace nasc::ir::reference {

namespace {

/// Sizes of a Conv node: batch N, channels C, filters K, group G and the window geometry.
struct ConvShape {
  int64_t batch, channels, filters, group;
  Window3 window;
};

ConvShape convShape(const ir::Node &node, const ir::Tensor &x, const ir::Tensor &w) {
  if (x.shape.size() < 3 || x.shape.size() != w.shape.size())
    fail(node, "X " + ir::shapeToString(x.shape) + " and W " + ir::shapeToString(w.shape) +
                   " must have the same rank >= 3");
  const int64_t group = node.getInt("group", 1);
  const int64_t channels = x.shape[1], filters = w.shape[0];
  if (group <= 0 || channels % group != 0 || filters % group != 0 || w.shape[1] != channels / group)
    fail(node, "attribute 'group': " + std::to_string(group) + " does not fit X " +
                   ir::shapeToString(x.shape) + " and W " + ir::shapeToString(w.shape));
  const std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  if (node.has("kernel_shape") && node.getInts("kernel_shape", {}) != kernel)
    fail(node, "attribute 'kernel_shape' does not match W " + ir::shapeToString(w.shape));
  const std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  WindowGeometry geometry = windowGeometry(node, spatial, kernel, false);
  return {x.shape[0], channels, filters, group, embedIn3(node, geometry)};
}

} // namespace

/// Column matrix (channels * kernel size) x (output size) of `channels` input planes starting at
/// `x`; zero where a window reads padding.
RowMatrix im2col(const float *x, int64_t channels, const Window3 &w) {
  RowMatrix col = RowMatrix::Zero(channels * w.kernelSize(), w.outputSize());
  int64_t row = 0;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t r0 = 0; r0 < w.kernel[0]; ++r0)
      for (int64_t r1 = 0; r1 < w.kernel[1]; ++r1)
        for (int64_t r2 = 0; r2 < w.kernel[2]; ++r2, ++row) {
          float *dst = col.row(row).data();
          const float *plane = x + c * w.inputSize();
          for (int64_t o0 = 0; o0 < w.output[0]; ++o0) {
            const int64_t i0 = w.inputCoord(0, o0, r0);
            if (i0 < 0 || i0 >= w.input[0])
              continue;
            for (int64_t o1 = 0; o1 < w.output[1]; ++o1) {
              const int64_t i1 = w.inputCoord(1, o1, r1);
              if (i1 < 0 || i1 >= w.input[1])
                continue;
              const float *line = plane + (i0 * w.input[1] + i1) * w.input[2];
              float *out = dst + (o0 * w.output[1] + o1) * w.output[2];
              for (int64_t o2 = 0; o2 < w.output[2]; ++o2) {
                const int64_t i2 = w.inputCoord(2, o2, r2);
                if (i2 >= 0 && i2 < w.input[2])
                  out[o2] = line[i2];
              }
            }
          }
        }
  return col;
}

namespace {

ir::Shape outputShape(const ConvShape &s, const ir::Tensor &x) {
  ir::Shape shape{s.batch, s.filters};
  const size_t spatialRank = x.shape.size() - 2;
  for (size_t d = 3 - spatialRank; d < 3; ++d)
    shape.push_back(s.window.output[d]);
  return shape;
}

void addBias(const ir::Node &node, const ir::Tensor &bias, const ConvShape &s, ir::Tensor &y) {
  if (bias.shape != ir::Shape{s.filters})
    fail(node, "input B " + ir::shapeToString(bias.shape) + " must have shape " +
                   std::to_string(s.filters));
  const int64_t plane = s.window.outputSize();
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t k = 0; k < s.filters; ++k)
      Eigen::Map<Eigen::ArrayXf>(y.f.data() + (n * s.filters + k) * plane, plane) += bias.f[k];
}

} // namespace

OpOutputs conv(const ir::Node &node, const OpInputs &inputs) {
  requireAtMostOutputs(node, 1);
  const ir::Tensor &x = floatInput(node, inputs, 0, "X");
  const ir::Tensor &w = floatInput(node, inputs, 1, "W");
  const ConvShape s = convShape(node, x, w);
  ir::Tensor y = ir::Tensor::zeros(outputShape(s, x));
  const int64_t groupChannels = s.channels / s.group, groupFilters = s.filters / s.group;
  const int64_t plane = s.window.outputSize(), depth = groupChannels * s.window.kernelSize();
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t g = 0; g < s.group; ++g) {
      const float *xg = x.f.data() + (n * s.channels + g * groupChannels) * s.window.inputSize();
      Eigen::Map<const RowMatrix> wg(w.f.data() + g * groupFilters * depth, groupFilters, depth);
      Eigen::Map<RowMatrix> yg(y.f.data() + (n * s.filters + g * groupFilters) * plane,
                               groupFilters, plane);
      yg.noalias() = wg * im2col(xg, groupChannels, s.window);
    }
  if (optionalInput(inputs, 2))
    addBias(node, floatInput(node, inputs, 2, "B"), s, y);
  return {std::move(y)};
}

} // namespace nasc::ir::reference
