// Slice (ONNX Slice-10/13) forward and backward: a strided window of the input, and the scatter
// of its gradient back into zeros.
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"

#include <algorithm>

namespace nasc::ir::reference {

namespace {

/// Where each output element of a Slice reads: input index start[d] + step[d]·i along dim d.
struct SliceWindow {
  ir::Shape output;
  std::vector<int64_t> start, step;
};

/// The int64 input `index` called `role` (nullptr when omitted or empty-named); throws nasc::Error
/// naming the node and role when it is not a 1-D int64 tensor of `count` entries (any count when
/// `count` is negative).
const ir::Tensor *indexInput(const ir::Node &node, const OpInputs &inputs, size_t index,
                             const char *role, int64_t count) {
  const ir::Tensor *t = optionalInput(inputs, index);
  if (t && (t->dtype != ir::DType::Int64 || t->shape.size() != 1 ||
            (count >= 0 && t->shape[0] != count)))
    fail(node, std::string("input '") + role + "' must be a 1-D int64 tensor" +
                   (count >= 0 ? " of " + std::to_string(count) + " entries" : ""));
  return t;
}

/// ONNX Slice-13: negative starts / ends / axes count from the end; starts and ends clamped to
/// [0, dim] for positive steps, [0, dim-1] and [-1, dim-1] for negative ones.
SliceWindow sliceWindow(const ir::Node &node, const OpInputs &inputs, const ir::Shape &shape) {
  for (const char *attr : {"starts", "ends", "axes"})
    if (node.has(attr))
      fail(node, std::string("attribute '") + attr +
                     "': the Slice-1 form is not supported (give starts, ends, axes as inputs)");
  const ir::Tensor *starts = indexInput(node, inputs, 1, "starts", -1);
  if (!starts || !optionalInput(inputs, 2))
    fail(node, "inputs 'starts' and 'ends' are required");
  const int64_t n = starts->shape[0];
  const ir::Tensor *ends = indexInput(node, inputs, 2, "ends", n);
  const ir::Tensor *axes = indexInput(node, inputs, 3, "axes", n);
  const ir::Tensor *steps = indexInput(node, inputs, 4, "steps", n);
  const auto rank = static_cast<int64_t>(shape.size());
  SliceWindow w{shape, std::vector<int64_t>(shape.size(), 0),
                std::vector<int64_t>(shape.size(), 1)};
  std::vector<bool> seen(shape.size(), false);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t a = axes ? axes->i[k] : k;
    if (a < -rank || a >= rank || seen[(a + rank) % rank])
      fail(node, "input 'axes': axis " + std::to_string(a) + " is out of range or repeated");
    const auto d = static_cast<size_t>((a + rank) % rank);
    seen[d] = true;
    const int64_t dim = shape[d], step = steps ? steps->i[k] : 1;
    if (step == 0)
      fail(node, "input 'steps': a step is 0");
    int64_t begin = starts->i[k] < 0 ? starts->i[k] + dim : starts->i[k];
    int64_t end = ends->i[k] < 0 ? ends->i[k] + dim : ends->i[k];
    begin = std::max<int64_t>(0, std::min(begin, step > 0 ? dim : dim - 1));
    end = std::max<int64_t>(step > 0 ? 0 : -1, std::min(end, step > 0 ? dim : dim - 1));
    const int64_t span = step > 0 ? end - begin : begin - end, stride = step > 0 ? step : -step;
    w.output[d] = dim == 0 ? 0 : std::max<int64_t>(0, (span + stride - 1) / stride);
    w.start[d] = begin;
    w.step[d] = step;
  }
  return w;
}

/// Calls visit(output offset, input offset) for every output element of `w` on input `shape`.
template <typename Visit>
void forEachElement(const SliceWindow &w, const ir::Shape &shape, Visit visit) {
  const int64_t total = ir::numElements(w.output);
  std::vector<int64_t> index(w.output.size(), 0);
  for (int64_t o = 0; o < total; ++o) {
    int64_t in = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      in = in * shape[d] + w.start[d] + w.step[d] * index[d];
    visit(o, in);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < w.output[d])
        break;
      index[d] = 0;
    }
  }
}

} // namespace

OpOutputs slice(const ir::Node &node, const OpInputs &inputs) {
  const ir::Tensor &x = floatInput(node, inputs, 0, "data");
  const SliceWindow w = sliceWindow(node, inputs, x.shape);
  ir::Tensor y = ir::Tensor::zeros(w.output);
  forEachElement(w, x.shape, [&](int64_t o, int64_t in) { y.f[o] = x.f[in]; });
  return {std::move(y)};
}

InputGradients sliceBackward(const BackwardArgs &args) {
  const ir::Tensor &x = floatInput(args.node, args.inputs, 0, "data");
  const SliceWindow w = sliceWindow(args.node, args.inputs, x.shape);
  ir::Tensor dx = ir::Tensor::zeros(x.shape);
  forEachElement(w, x.shape, [&](int64_t o, int64_t in) { dx.f[in] += args.dy.f[o]; });
  return {std::move(dx)};
}

} // namespace nasc::ir::reference
