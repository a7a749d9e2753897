// Conv backward w.r.t. its input X (W^T dY per image and group, scattered back by col2im) and its
// weight W (dY im2col(X)^T summed over the batch).
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Im2col.h"

namespace nasc::ir::reference {

namespace {

/// Adds the column matrix `col` ((channels * kernel size) x output size, the layout of Conv.cpp's
/// im2col) back into `channels` input planes starting at `dx`; window elements in padding drop.
void col2imAdd(const RowMatrix &col, int64_t channels, const Window3 &w, float *dx) {
  int64_t row = 0;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t r0 = 0; r0 < w.kernel[0]; ++r0)
      for (int64_t r1 = 0; r1 < w.kernel[1]; ++r1)
        for (int64_t r2 = 0; r2 < w.kernel[2]; ++r2, ++row) {
          const float *src = col.row(row).data();
          float *plane = dx + c * w.inputSize();
          for (int64_t o0 = 0; o0 < w.output[0]; ++o0) {
            const int64_t i0 = w.inputCoord(0, o0, r0);
            if (i0 < 0 || i0 >= w.input[0])
              continue;
            for (int64_t o1 = 0; o1 < w.output[1]; ++o1) {
              const int64_t i1 = w.inputCoord(1, o1, r1);
              if (i1 < 0 || i1 >= w.input[1])
                continue;
              float *line = plane + (i0 * w.input[1] + i1) * w.input[2];
              const float *in = src + (o0 * w.output[1] + o1) * w.output[2];
              for (int64_t o2 = 0; o2 < w.output[2]; ++o2) {
                const int64_t i2 = w.inputCoord(2, o2, r2);
                if (i2 >= 0 && i2 < w.input[2])
                  line[i2] += in[o2];
              }
            }
          }
        }
}

Window3 convWindow(const ir::Node &node, const ir::Tensor &x, const ir::Tensor &w) {
  const std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  const std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  return embedIn3(node, windowGeometry(node, spatial, kernel, false));
}

} // namespace

InputGradients convBackward(const BackwardArgs &args) {
  const ir::Tensor &x = floatInput(args.node, args.inputs, 0, "X");
  const ir::Tensor &w = floatInput(args.node, args.inputs, 1, "W");
  const Window3 window = convWindow(args.node, x, w);
  const int64_t batch = x.shape[0], channels = x.shape[1], filters = w.shape[0];
  const int64_t group = args.node.getInt("group", 1);
  const int64_t groupChannels = channels / group, groupFilters = filters / group;
  const int64_t plane = window.outputSize(), depth = groupChannels * window.kernelSize();
  ir::Tensor dx = ir::Tensor::zeros(x.shape);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t g = 0; g < group; ++g) {
      Eigen::Map<const RowMatrix> wg(w.f.data() + g * groupFilters * depth, groupFilters, depth);
      Eigen::Map<const RowMatrix> dyg(args.dy.f.data() + (n * filters + g * groupFilters) * plane,
                                      groupFilters, plane);
      const RowMatrix col = wg.transpose() * dyg;
      col2imAdd(col, groupChannels, window,
                dx.f.data() + (n * channels + g * groupChannels) * window.inputSize());
    }
  InputGradients grads(args.node.inputs.size());
  grads[0] = std::move(dx);
  return grads;
}

InputGradients convWeightGradients(const BackwardArgs &args) {
  const ir::Tensor &x = floatInput(args.node, args.inputs, 0, "X");
  const ir::Tensor &w = floatInput(args.node, args.inputs, 1, "W");
  const Window3 window = convWindow(args.node, x, w);
  const int64_t batch = x.shape[0], channels = x.shape[1], filters = w.shape[0];
  const int64_t group = args.node.getInt("group", 1);
  const int64_t groupChannels = channels / group, groupFilters = filters / group;
  const int64_t plane = window.outputSize(), depth = groupChannels * window.kernelSize();
  ir::Tensor dw = ir::Tensor::zeros(w.shape);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t g = 0; g < group; ++g) {
      const float *xg = x.f.data() + (n * channels + g * groupChannels) * window.inputSize();
      Eigen::Map<const RowMatrix> dyg(args.dy.f.data() + (n * filters + g * groupFilters) * plane,
                                      groupFilters, plane);
      Eigen::Map<RowMatrix> dwg(dw.f.data() + g * groupFilters * depth, groupFilters, depth);
      dwg.noalias() += dyg * im2col(xg, groupChannels, window).transpose();
    }
  return {std::nullopt, std::move(dw)};
}

} // namespace nasc::ir::reference
