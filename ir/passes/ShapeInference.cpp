#include "ir/passes/ShapeInference.h"

#include "ir/Error.h"
#include "ir/passes/ConstantFolding.h"
#include "ir/passes/WindowGeometry.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace nasc::ir {

namespace {

/// One node being inferred: its inputs' types and error reporting.
struct NodeContext {
  const Graph &graph;
  const Node &node;

  bool hasInput(size_t k) const { return k < node.inputs.size() && !node.inputs[k].empty(); }

  const ValueInfo &in(size_t k) const {
    if (!hasInput(k))
      fail("input " + std::to_string(k) + " is missing");
    auto it = graph.values.find(node.inputs[k]);
    if (it == graph.values.end())
      fail("input '" + node.inputs[k] + "' has no known shape (not produced before use)");
    return it->second;
  }

  [[noreturn]] void fail(const std::string &message) const {
    throw Error(node.describe() + ": " + message);
  }
};

using Outputs = std::vector<ValueInfo>;

int64_t normalizedAxis(const NodeContext &ctx, int64_t axis, int64_t rank, int64_t upper) {
  if (axis < -rank || axis > upper)
    ctx.fail("attribute 'axis': " + std::to_string(axis) + " is out of range for rank " +
             std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

Outputs sameAsInput(const NodeContext &ctx) { return {ctx.in(0)}; }

Outputs convShape(const NodeContext &ctx) {
  const Shape &x = ctx.in(0).shape;
  const Shape &w = ctx.in(1).shape;
  const int64_t group = ctx.node.getInt("group", 1);
  if (w.size() != x.size() || x.size() < 3)
    ctx.fail("input " + shapeToString(x) + " and weight " + shapeToString(w) +
             " must both be N x C x spatial...");
  if (group < 1 || x[1] != w[1] * group || w[0] % group != 0)
    ctx.fail("attribute 'group': " + std::to_string(group) + " does not match input " +
             shapeToString(x) + " and weight " + shapeToString(w));
  std::vector<int64_t> kernel(w.begin() + 2, w.end());
  if (ctx.node.has("kernel_shape") && ctx.node.getInts("kernel_shape", {}) != kernel)
    ctx.fail("attribute 'kernel_shape': does not match weight " + shapeToString(w));
  if (ctx.hasInput(2) && ctx.in(2).shape != Shape{w[0]})
    ctx.fail("bias " + shapeToString(ctx.in(2).shape) + " must have shape " + std::to_string(w[0]));
  WindowGeometry g = windowGeometry(ctx.node, x, kernel);
  Shape out{x[0], w[0]};
  out.insert(out.end(), g.outputSpatial.begin(), g.outputSpatial.end());
  return {ValueInfo{DType::Float32, out}};
}

Outputs poolShape(const NodeContext &ctx) {
  const Shape &x = ctx.in(0).shape;
  if (!ctx.node.has("kernel_shape"))
    ctx.fail("attribute 'kernel_shape': missing");
  WindowGeometry g = windowGeometry(ctx.node, x, ctx.node.getInts("kernel_shape", {}));
  Shape out{x[0], x[1]};
  out.insert(out.end(), g.outputSpatial.begin(), g.outputSpatial.end());
  return {ValueInfo{DType::Float32, out}};
}

Outputs globalPoolShape(const NodeContext &ctx) {
  Shape out = ctx.in(0).shape;
  if (out.size() < 3)
    ctx.fail("input " + shapeToString(out) + " must be N x C x spatial...");
  std::fill(out.begin() + 2, out.end(), 1);
  return {ValueInfo{DType::Float32, out}};
}

Outputs batchNormShape(const NodeContext &ctx) {
  const Shape &x = ctx.in(0).shape;
  if (x.size() < 2)
    ctx.fail("input " + shapeToString(x) + " must be N x C x ...");
  for (size_t k = 1; k <= 4; ++k)
    if (ctx.in(k).shape != Shape{x[1]})
      ctx.fail("input '" + ctx.node.inputs[k] + "' has shape " + shapeToString(ctx.in(k).shape) +
               ", expected " + std::to_string(x[1]));
  return {ctx.in(0)};
}

Outputs addShape(const NodeContext &ctx) {
  if (ctx.in(0).dtype != ctx.in(1).dtype)
    ctx.fail("inputs have different element types");
  return {ValueInfo{ctx.in(0).dtype,
                    broadcastShapes(ctx.in(0).shape, ctx.in(1).shape, ctx.node.describe())}};
}

Outputs flattenShape(const NodeContext &ctx) {
  const Shape &x = ctx.in(0).shape;
  const auto rank = static_cast<int64_t>(x.size());
  const int64_t axis = normalizedAxis(ctx, ctx.node.getInt("axis", 1), rank, rank);
  Shape outer(x.begin(), x.begin() + axis);
  Shape inner(x.begin() + axis, x.end());
  return {ValueInfo{ctx.in(0).dtype, {numElements(outer), numElements(inner)}}};
}

Outputs gemmShape(const NodeContext &ctx) {
  const Shape &a = ctx.in(0).shape;
  const Shape &b = ctx.in(1).shape;
  if (a.size() != 2 || b.size() != 2)
    ctx.fail("inputs " + shapeToString(a) + " and " + shapeToString(b) + " must be 2-D");
  const bool transA = ctx.node.getInt("transA", 0) != 0;
  const bool transB = ctx.node.getInt("transB", 0) != 0;
  const int64_t m = transA ? a[1] : a[0];
  const int64_t kA = transA ? a[0] : a[1];
  const int64_t kB = transB ? b[1] : b[0];
  const int64_t n = transB ? b[0] : b[1];
  if (kA != kB)
    ctx.fail("inner dimensions differ: A " + shapeToString(a) + ", B " + shapeToString(b));
  Shape out{m, n};
  if (ctx.hasInput(2) && broadcastShapes(out, ctx.in(2).shape, ctx.node.describe()) != out)
    ctx.fail("bias C " + shapeToString(ctx.in(2).shape) + " does not broadcast to " +
             shapeToString(out));
  return {ValueInfo{DType::Float32, out}};
}

Outputs concatShape(const NodeContext &ctx) {
  Shape out = ctx.in(0).shape;
  const auto rank = static_cast<int64_t>(out.size());
  if (!ctx.node.has("axis"))
    ctx.fail("attribute 'axis': missing");
  const int64_t axis = normalizedAxis(ctx, ctx.node.getInt("axis", 0), rank, rank - 1);
  for (size_t k = 1; k < ctx.node.inputs.size(); ++k) {
    Shape other = ctx.in(k).shape;
    if (other.size() != out.size())
      ctx.fail("inputs " + shapeToString(out) + " and " + shapeToString(other) + " differ in rank");
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && other[d] != out[d])
        ctx.fail("input '" + ctx.node.inputs[k] + "' " + shapeToString(other) +
                 " differs outside axis " + std::to_string(axis));
    out[axis] += other[axis];
  }
  return {ValueInfo{ctx.in(0).dtype, out}};
}

Outputs constantShape(const NodeContext &ctx) {
  Tensor value = constantNodeValue(ctx.node);
  return {ValueInfo{value.dtype, value.shape}};
}

Outputs reshapeShape(const NodeContext &ctx) {
  auto it = ctx.graph.initializers.find(ctx.node.inputs.size() > 1 ? ctx.node.inputs[1] : "");
  if (it == ctx.graph.initializers.end() || it->second.dtype != DType::Int64 ||
      it->second.shape.size() != 1)
    ctx.fail("the shape input must be a 1-D int64 initializer or Constant");
  const Shape &x = ctx.in(0).shape;
  const bool allowZero = ctx.node.getInt("allowzero", 0) != 0;
  Shape out = it->second.i;
  int64_t inferred = -1;
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 0 && !allowZero) {
      if (d >= x.size())
        ctx.fail("shape entry 0 at " + std::to_string(d) + " has no input dim to copy");
      out[d] = x[d];
    } else if (out[d] == -1) {
      if (inferred >= 0)
        ctx.fail("shape has more than one -1");
      inferred = static_cast<int64_t>(d);
    } else if (out[d] < 0) {
      ctx.fail("shape entry " + std::to_string(out[d]) + " is invalid");
    }
  }
  if (inferred >= 0) {
    out[inferred] = 1;
    const int64_t known = numElements(out);
    if (known == 0 || numElements(x) % known != 0)
      ctx.fail("cannot reshape " + shapeToString(x) + " to " + shapeToString(it->second.i));
    out[inferred] = numElements(x) / known;
  }
  if (numElements(out) != numElements(x))
    ctx.fail("cannot reshape " + shapeToString(x) + " to " + shapeToString(out));
  return {ValueInfo{ctx.in(0).dtype, out}};
}

Outputs sliceShape(const NodeContext &ctx) {
  Shape out = ctx.in(0).shape;
  for (const SliceAxis &a : sliceAxes(ctx.graph, ctx.node, out))
    out[a.axis] = a.count;
  return {ValueInfo{ctx.in(0).dtype, out}};
}

Outputs resizeShape(const NodeContext &ctx) {
  if (ctx.in(0).dtype != DType::Float32)
    ctx.fail("input '" + ctx.node.inputs[0] + "': only float32 is supported");
  return {ValueInfo{DType::Float32, resizeAxes(ctx.graph, ctx.node, ctx.in(0).shape).output}};
}

const std::map<std::string, std::function<Outputs(const NodeContext &)>> &rules() {
  static const std::map<std::string, std::function<Outputs(const NodeContext &)>> table = {
      {"Conv", convShape},         {"BatchNormalization", batchNormShape},
      {"Relu", sameAsInput},       {"MaxPool", poolShape},
      {"AveragePool", poolShape},  {"GlobalAveragePool", globalPoolShape},
      {"Add", addShape},           {"Flatten", flattenShape},
      {"Gemm", gemmShape},         {"Concat", concatShape},
      {"Identity", sameAsInput},   {"Dropout", sameAsInput},
      {"Constant", constantShape}, {"Reshape", reshapeShape},
      {"Slice", sliceShape},       {"Resize", resizeShape},
  };
  return table;
}

void recordOutputs(Graph &graph, const Node &node, const Outputs &outputs) {
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

/// Compute ops take float32 only; shape-like ops (Add, Flatten, Concat, ...) also int64.
void checkFloatInputs(const NodeContext &ctx) {
  static const std::set<std::string> floatOnly = {
      "Conv",        "BatchNormalization", "Relu", "MaxPool",
      "AveragePool", "GlobalAveragePool",  "Gemm", "Dropout"};
  if (!floatOnly.count(ctx.node.op_type))
    return;
  for (size_t k = 0; k < ctx.node.inputs.size(); ++k)
    if (ctx.hasInput(k) && !(ctx.node.op_type == "Dropout" && k > 0) &&
        ctx.in(k).dtype != DType::Float32)
      ctx.fail("input '" + ctx.node.inputs[k] + "': only float32 is supported");
}

void inferNode(Graph &graph, const Node &node) {
  auto rule = rules().find(node.op_type);
  if (rule == rules().end())
    throw Error(node.describe() + ": op is not supported by shape inference");
  NodeContext ctx{graph, node};
  checkFloatInputs(ctx);
  recordOutputs(graph, node, rule->second(ctx));
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
