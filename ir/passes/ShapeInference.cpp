#include "ir/passes/ShapeInference.h"

#include "ir/Error.h"
#include "ir/ops/OpDef.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace nasc::ir {

namespace {

void recordOutputs(Graph &graph, const Node &node, const OutputTypes &outputs) {
  for (size_t k = 0; k < outputs.size() && k < node.outputs.size(); ++k) {
    const std::string &name = node.outputs[k];
    if (name.empty())
      continue;
    auto it = graph.values.find(name);
    if (it != graph.values.end() &&
        (it->second.shape != outputs[k].shape || it->second.dtype != outputs[k].dtype))
      throw Error(node.describe() + ": output '" + name + "': inferred shape " +
                  shapeToString(outputs[k].shape) + " but the model declares " +
                  shapeToString(it->second.shape) +
                  (it->second.dtype != outputs[k].dtype ? " (or another element type)" : ""));
    graph.values[name] = outputs[k];
  }
}

/// The first OpDef::floatInputs inputs must be float32.
void checkFloatInputs(const ShapeContext &ctx, const OpDef &op) {
  for (size_t k = 0; k < ctx.node.inputs.size() && k < op.floatInputs; ++k)
    if (ctx.hasInput(k) && ctx.in(k).dtype != DType::Float32)
      ctx.fail("input '" + ctx.node.inputs[k] + "': only float32 is supported");
}

void inferNode(Graph &graph, const Node &node) {
  const OpDef *op = findOp(node.op_type);
  if (!op)
    throw Error(node.describe() + ": op is not supported by shape inference");
  ShapeContext ctx{graph, node};
  checkFloatInputs(ctx, *op);
  recordOutputs(graph, node, op->shape(ctx));
}

/// Optional input `k` of `node`, called `role` in messages, as a constant of `dtype`: nullptr
/// when omitted (absent or ""); throws nasc::Error when it is not a 1-D initializer of `dtype`.
const Tensor *constantInput(const Graph &graph, const Node &node, size_t k, const std::string &role,
                            DType dtype) {
  if (k >= node.inputs.size() || node.inputs[k].empty())
    return nullptr;
  const std::string where = node.describe() + ": input '" + role + "' ('" + node.inputs[k] + "')";
  auto it = graph.initializers.find(node.inputs[k]);
  if (it == graph.initializers.end())
    throw Error(where + ": must be a constant (an initializer or Constant); computed values are "
                        "not supported");
  if (it->second.dtype != dtype || it->second.shape.size() != 1)
    throw Error(where + ": must be a 1-D " + (dtype == DType::Int64 ? "int64" : "float32") +
                " tensor, got " + shapeToString(it->second.shape));
  return &it->second;
}

/// Starts / ends clamped for one Slice axis of extent `dim` (ONNX Slice-13).
SliceAxis clampedSliceAxis(int64_t axis, int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (dim == 0)
    return SliceAxis{axis, 0, step, 0};
  auto wrap = [dim](int64_t v) { return v < 0 ? v + dim : v; };
  start = wrap(start);
  end = wrap(end);
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
  }
  const int64_t span = step > 0 ? end - start : start - end;
  const int64_t stride = step > 0 ? step : -step;
  return SliceAxis{axis, start, step, std::max<int64_t>(0, (span + stride - 1) / stride)};
}

/// Output extent of Resize axis `d` from `scales` (floor(in · scale), ONNX Resize-13).
int64_t scaledExtent(const Node &node, int64_t in, float scale, size_t d) {
  if (!(scale > 0.0f))
    throw Error(node.describe() + ": input 'scales': entry " + std::to_string(d) + " (" +
                std::to_string(scale) + ") must be positive");
  return static_cast<int64_t>(std::floor(static_cast<double>(in) * static_cast<double>(scale)));
}

} // namespace

std::vector<SliceAxis> sliceAxes(const Graph &graph, const Node &node, const Shape &input) {
  const Tensor *starts = constantInput(graph, node, 1, "starts", DType::Int64);
  const Tensor *ends = constantInput(graph, node, 2, "ends", DType::Int64);
  if (!starts || !ends)
    throw Error(node.describe() + ": inputs 'starts' and 'ends' are required");
  const Tensor *axes = constantInput(graph, node, 3, "axes", DType::Int64);
  const Tensor *steps = constantInput(graph, node, 4, "steps", DType::Int64);
  const size_t count = starts->i.size();
  for (const auto &[role, t] : {std::pair{"ends", ends}, {"axes", axes}, {"steps", steps}})
    if (t && t->i.size() != count)
      throw Error(node.describe() + ": input '" + role + "' has " + std::to_string(t->i.size()) +
                  " entries, 'starts' has " + std::to_string(count));
  const auto rank = static_cast<int64_t>(input.size());
  std::vector<SliceAxis> result;
  std::set<int64_t> seen;
  for (size_t k = 0; k < count; ++k) {
    int64_t axis = axes ? axes->i[k] : static_cast<int64_t>(k);
    if (axis < -rank || axis >= rank)
      throw Error(node.describe() + ": input 'axes': axis " + std::to_string(axis) +
                  " is out of range for rank " + std::to_string(rank));
    axis = axis < 0 ? axis + rank : axis;
    if (!seen.insert(axis).second)
      throw Error(node.describe() + ": input 'axes': axis " + std::to_string(axis) +
                  " appears twice");
    const int64_t step = steps ? steps->i[k] : 1;
    if (step == 0)
      throw Error(node.describe() + ": input 'steps': entry " + std::to_string(k) + " is 0");
    result.push_back(clampedSliceAxis(axis, input[axis], starts->i[k], ends->i[k], step));
  }
  return result;
}

ResizeAxes resizeAxes(const Graph &graph, const Node &node, const Shape &input) {
  const std::string mode = node.getString("mode", "nearest");
  if (mode != "nearest")
    throw Error(node.describe() + ": attribute 'mode': value '" + mode +
                "' is not supported (only 'nearest')");
  const Tensor *scales = constantInput(graph, node, 2, "scales", DType::Float32);
  const Tensor *sizes = constantInput(graph, node, 3, "sizes", DType::Int64);
  const bool useScales = scales && !scales->f.empty();
  if (useScales == (sizes && !sizes->i.empty()))
    throw Error(node.describe() + ": exactly one of inputs 'scales' and 'sizes' must be given");
  if (node.getString("coordinate_transformation_mode", "half_pixel") == "tf_crop_and_resize" &&
      useScales)
    throw Error(node.describe() + ": attribute 'coordinate_transformation_mode': "
                                  "'tf_crop_and_resize' with 'scales' is not supported (give "
                                  "'sizes')");
  const size_t entries = useScales ? scales->f.size() : sizes->i.size();
  if (entries != input.size())
    throw Error(node.describe() + ": input '" + (useScales ? "scales" : "sizes") + "' has " +
                std::to_string(entries) + " entries for an input of rank " +
                std::to_string(input.size()));
  ResizeAxes result;
  for (size_t d = 0; d < input.size(); ++d) {
    const int64_t out = useScales ? scaledExtent(node, input[d], scales->f[d], d) : sizes->i[d];
    if (out < 1)
      throw Error(node.describe() + ": output extent " + std::to_string(out) + " of axis " +
                  std::to_string(d) + " must be positive");
    result.output.push_back(out);
    result.scales.push_back(useScales ? static_cast<double>(scales->f[d])
                                      : static_cast<double>(out) / static_cast<double>(input[d]));
  }
  return result;
}

Shape broadcastShapes(const Shape &a, const Shape &b, const std::string &context) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    const int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (da != db && da != 1 && db != 1)
      throw Error(context + ": shapes " + shapeToString(a) + " and " + shapeToString(b) +
                  " are not broadcastable");
    out[out.size() - 1 - k] = da == 1 ? db : da;
  }
  return out;
}

void inferShapes(Graph &graph) {
  for (const auto &[name, tensor] : graph.initializers)
    graph.values[name] = ValueInfo{tensor.dtype, tensor.shape};
  for (const Node &node : graph.nodes) {
    try {
      inferNode(graph, node);
    } catch (const Error &e) {
      throw Error(graph.source + ": " + e.what());
    }
  }
  for (const std::string &output : graph.outputs)
    if (!graph.values.count(output))
      throw Error(graph.source + ": graph output '" + output + "' is not produced by any node");
}

} // namespace nasc::ir
