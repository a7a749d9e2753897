// Resize with mode 'nearest' (ONNX Resize-11/13) forward and backward: every output element copies
// one input element (or extrapolation_value outside a tf_crop_and_resize box); the gradient sums
// each output's dY into its source.
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"

#include <algorithm>
#include <cmath>

namespace nasc::ir::reference {

namespace {

/// Source index along one axis per output index; -1 marks extrapolation.
using AxisSources = std::vector<int64_t>;

const ir::Tensor *nonEmpty(const OpInputs &inputs, size_t index) {
  const ir::Tensor *t = optionalInput(inputs, index);
  return t && t->size() > 0 ? t : nullptr;
}

/// Output extent and scale (output / input coordinates) per axis, from sizes or scales.
void extentsAndScales(const ir::Node &node, const OpInputs &inputs, const ir::Shape &x,
                      ir::Shape &out, std::vector<double> &scales) {
  const ir::Tensor *scaleInput = nonEmpty(inputs, 2), *sizes = nonEmpty(inputs, 3);
  if ((scaleInput != nullptr) == (sizes != nullptr))
    fail(node, "exactly one of inputs 'scales' and 'sizes' must be given");
  const ir::Tensor &given = scaleInput ? *scaleInput : *sizes;
  if (given.size() != static_cast<int64_t>(x.size()) ||
      given.dtype != (scaleInput ? ir::DType::Float32 : ir::DType::Int64))
    fail(node, std::string("input '") + (scaleInput ? "scales" : "sizes") + "' must hold " +
                   std::to_string(x.size()) + (scaleInput ? " float32" : " int64") + " entries");
  for (size_t d = 0; d < x.size(); ++d) {
    const double in = static_cast<double>(x[d]);
    out.push_back(scaleInput ? static_cast<int64_t>(std::floor(in * scaleInput->f[d]))
                             : sizes->i[d]);
    scales.push_back(scaleInput ? scaleInput->f[d] : static_cast<double>(out[d]) / in);
    if (out[d] < 0 || !(scales[d] > 0))
      fail(node, "axis " + std::to_string(d) + ": scale and output extent must be positive");
  }
}

/// ONNX Resize-13 coordinate_transformation_mode: input coordinate of output index `o` on an axis
/// of `in` -> `out` elements at `scale`; roi `start`, `end` for tf_crop_and_resize.
double inputCoordinate(const ir::Node &node, const std::string &mode, double o, double in,
                       double out, double scale, double start, double end) {
  if (mode == "half_pixel")
    return (o + 0.5) / scale - 0.5;
  if (mode == "pytorch_half_pixel")
    return out > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
  if (mode == "align_corners")
    return out > 1 ? o * (in - 1) / (out - 1) : 0.0;
  if (mode == "asymmetric")
    return o / scale;
  if (mode == "tf_half_pixel_for_nn")
    return (o + 0.5) / scale;
  if (mode == "tf_crop_and_resize")
    return out > 1 ? start * (in - 1) + o * (end - start) * (in - 1) / (out - 1)
                   : 0.5 * (start + end) * (in - 1);
  fail(node, "attribute 'coordinate_transformation_mode': value '" + mode + "' is not supported");
}

/// ONNX Resize-13 nearest_mode applied to coordinate `x`.
double nearest(const ir::Node &node, const std::string &mode, double x) {
  if (mode == "round_prefer_floor")
    return std::ceil(x - 0.5);
  if (mode == "round_prefer_ceil")
    return std::floor(x + 0.5);
  if (mode == "floor")
    return std::floor(x);
  if (mode == "ceil")
    return std::ceil(x);
  fail(node, "attribute 'nearest_mode': value '" + mode + "' is not supported");
}

/// Output shape and, per axis, the source index of every output index (clamped to the input;
/// -1 outside the tf_crop_and_resize box).
std::vector<AxisSources> sources(const ir::Node &node, const OpInputs &inputs, const ir::Shape &x,
                                 ir::Shape &out) {
  const std::string mode = node.getString("mode", "nearest");
  if (mode != "nearest")
    fail(node, "attribute 'mode': value '" + mode + "' is not supported (only 'nearest')");
  const std::string transform = node.getString("coordinate_transformation_mode", "half_pixel");
  const std::string rounding = node.getString("nearest_mode", "round_prefer_floor");
  std::vector<double> scales;
  extentsAndScales(node, inputs, x, out, scales);
  const ir::Tensor *roi = nonEmpty(inputs, 1);
  const bool crop = transform == "tf_crop_and_resize";
  if (crop && (!roi || roi->dtype != ir::DType::Float32 ||
               roi->size() != 2 * static_cast<int64_t>(x.size())))
    fail(node, "input 'roi' must hold 2 x rank float32 entries for tf_crop_and_resize");
  std::vector<AxisSources> result(x.size());
  for (size_t d = 0; d < x.size(); ++d) {
    const double in = static_cast<double>(x[d]);
    for (int64_t o = 0; o < out[d]; ++o) {
      const double c =
          inputCoordinate(node, transform, static_cast<double>(o), in, static_cast<double>(out[d]),
                          scales[d], crop ? roi->f[d] : 0.0, crop ? roi->f[d + x.size()] : 0.0);
      const bool outside = crop && (c < 0 || c > in - 1);
      const double i = std::min(std::max(nearest(node, rounding, c), 0.0), in - 1);
      result[d].push_back(outside ? -1 : static_cast<int64_t>(i));
    }
  }
  return result;
}

/// Calls visit(output offset, input offset or -1) for every element of the output `out`.
template <typename Visit>
void forEachElement(const std::vector<AxisSources> &src, const ir::Shape &x, const ir::Shape &out,
                    Visit visit) {
  std::vector<int64_t> index(out.size(), 0);
  for (int64_t o = 0; o < ir::numElements(out); ++o) {
    int64_t in = 0;
    for (size_t d = 0; d < out.size() && in >= 0; ++d)
      in = src[d][index[d]] < 0 ? -1 : in * x[d] + src[d][index[d]];
    visit(o, in);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < out[d])
        break;
      index[d] = 0;
    }
  }
}

} // namespace

OpOutputs resize(const ir::Node &node, const OpInputs &inputs) {
  const ir::Tensor &x = floatInput(node, inputs, 0, "X");
  ir::Shape out;
  const std::vector<AxisSources> src = sources(node, inputs, x.shape, out);
  const float outside = node.getFloat("extrapolation_value", 0.0f);
  ir::Tensor y = ir::Tensor::zeros(out);
  forEachElement(src, x.shape, out,
                 [&](int64_t o, int64_t in) { y.f[o] = in < 0 ? outside : x.f[in]; });
  return {std::move(y)};
}

InputGradients resizeBackward(const BackwardArgs &args) {
  const ir::Tensor &x = floatInput(args.node, args.inputs, 0, "X");
  ir::Shape out;
  const std::vector<AxisSources> src = sources(args.node, args.inputs, x.shape, out);
  ir::Tensor dx = ir::Tensor::zeros(x.shape);
  forEachElement(src, x.shape, out, [&](int64_t o, int64_t in) {
    if (in >= 0)
      dx.f[in] += args.dy.f[o];
  });
  return {std::move(dx)};
}

} // namespace nasc::ir::reference
