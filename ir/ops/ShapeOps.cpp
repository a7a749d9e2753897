// Ops that copy or rearrange data without arithmetic (ONNX Flatten-13, Reshape-14, Squeeze-1/13,
// Unsqueeze-1/13, Identity, Dropout in inference, Concat-13) and Constant.
// Concat is lowered to one copy statement per input, writing at its offset along the axis; the
// others to a row-major copy (ir/lower/Copy.h).
#include "ir/Error.h"
#include "ir/lower/Copy.h"
#include "ir/lower/LowerContext.h"
#include "ir/lower/Statements.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"
#include "ir/passes/ConstantFolding.h"

#include <algorithm>
#include <set>

namespace nasc::ir::lower {

namespace {

size_t concatAxis(const LowerContext &ctx, const Node &node, size_t rank) {
  if (!node.has("axis"))
    throw Error(ctx.where(node, "attribute 'axis' is required"));
  int64_t axis = node.getInt("axis", 0);
  int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    throw Error(ctx.where(node, "attribute 'axis': " + std::to_string(axis) +
                                    " is out of range for rank " + std::to_string(rank)));
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

/// Whether `in` equals `out` except along `axis`.
bool sameExceptAxis(const Shape &in, const Shape &out, size_t axis) {
  if (in.size() != out.size())
    return false;
  for (size_t d = 0; d < in.size(); ++d)
    if (d != axis && in[d] != out[d])
      return false;
  return true;
}

void lowerConcat(LowerContext &ctx, const Node &node) {
  if (node.inputs.empty() || node.outputs.empty())
    throw Error(ctx.where(node, "needs inputs and an output"));
  const Shape &out = ctx.shape(node.outputs[0]);
  size_t axis = concatAxis(ctx, node, out.size());
  KernelBuilder kb(ctx, node.name.empty() ? "concat" : node.name);
  for (const std::string &input : node.inputs)
    if (!sameExceptAxis(ctx.shape(input), out, axis))
      throw Error(ctx.where(node, "input '" + input + "' " + shapeToString(ctx.shape(input)) +
                                      " does not fit the output " + shapeToString(out)));
  std::vector<int> inputs;
  for (const std::string &input : node.inputs)
    inputs.push_back(kb.tensor(input));
  int o = kb.tensor(node.outputs[0]);
  int64_t offset = 0;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const Shape &in = ctx.shape(node.inputs[k]);
    if (in[axis] > 0 && numElements(in) > 0) {
      Statement st = makeStatement(elementIterators(in.size()), in);
      st.write = iterAccess(o, st, 0, in.size());
      st.write.index[axis] = st.write.index[axis] + offset;
      st.value = load(iterAccess(inputs[k], st, 0, in.size()));
      kb.add(std::move(st));
    }
    offset += in[axis];
  }
  if (offset != out[axis])
    throw Error(ctx.where(node, "the inputs' sizes along the axis add up to " +
                                    std::to_string(offset) + ", not the output's " +
                                    std::to_string(out[axis])));
  kb.emit({node.name});
}

void lowerReshape(LowerContext &ctx, const Node &node) {
  if (node.inputs.empty() || node.outputs.empty())
    throw Error(ctx.where(node, "needs an input and an output"));
  const Shape &in = ctx.shape(node.inputs[0]);
  const Shape &out = ctx.shape(node.outputs[0]);
  if (numElements(in) != numElements(out))
    throw Error(ctx.where(node, "input " + shapeToString(in) + " and output " + shapeToString(out) +
                                    " differ in element count"));
  lowerCopy(ctx, node.name.empty() ? node.op_type : node.name, node.inputs[0],
            ctx.buffer(node.outputs[0]), {node.name});
}

} // namespace

} // namespace nasc::ir::lower

namespace nasc::ir::ops {

namespace {

OutputTypes flattenShape(const ShapeContext &ctx) {
  const Shape &x = ctx.in(0).shape;
  const auto rank = static_cast<int64_t>(x.size());
  const int64_t axis = normalizedAxis(ctx, ctx.node.getInt("axis", 1), rank, rank);
  Shape outer(x.begin(), x.begin() + axis);
  Shape inner(x.begin() + axis, x.end());
  return {ValueInfo{ctx.in(0).dtype, {numElements(outer), numElements(inner)}}};
}

OutputTypes concatShape(const ShapeContext &ctx) {
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

OutputTypes constantShape(const ShapeContext &ctx) {
  Tensor value = constantNodeValue(ctx.node);
  return {ValueInfo{value.dtype, value.shape}};
}

OutputTypes reshapeShape(const ShapeContext &ctx) {
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

/// Squeeze's / Unsqueeze's axes: attribute 'axes' (opset < 13) or the int64 initializer of input
/// 1 (opset 13); empty when neither is given.
std::vector<int64_t> axesOf(const ShapeContext &ctx) {
  if (ctx.node.has("axes"))
    return ctx.node.getInts("axes", {});
  if (!ctx.hasInput(1))
    return {};
  auto it = ctx.graph.initializers.find(ctx.node.inputs[1]);
  if (it == ctx.graph.initializers.end() || it->second.dtype != DType::Int64 ||
      it->second.shape.size() != 1)
    ctx.fail("input 'axes' must be a 1-D int64 initializer or Constant");
  return it->second.i;
}

/// Axes normalised to [0, rank), each once.
std::set<int64_t> distinctAxes(const ShapeContext &ctx, const std::vector<int64_t> &axes,
                               int64_t rank) {
  std::set<int64_t> result;
  for (int64_t axis : axes)
    if (!result.insert(normalizedAxis(ctx, axis, rank, rank - 1)).second)
      ctx.fail("attribute 'axes': axis " + std::to_string(axis) + " appears twice");
  return result;
}

/// Input 0 without the axes of extent 1 named by axesOf (all of them when none are named).
OutputTypes squeezeShape(const ShapeContext &ctx) {
  const Shape &x = ctx.in(0).shape;
  const std::vector<int64_t> named = axesOf(ctx);
  std::set<int64_t> axes = distinctAxes(ctx, named, static_cast<int64_t>(x.size()));
  Shape out;
  for (size_t d = 0; d < x.size(); ++d) {
    const bool listed = axes.count(static_cast<int64_t>(d)) != 0;
    if (listed && x[d] != 1)
      ctx.fail("axis " + std::to_string(d) + " of input " + shapeToString(x) +
               " has extent other than 1");
    if (!(listed || (named.empty() && x[d] == 1)))
      out.push_back(x[d]);
  }
  return {ValueInfo{ctx.in(0).dtype, out}};
}

/// Input 0 with axes of extent 1 inserted at the output positions named by axesOf.
OutputTypes unsqueezeShape(const ShapeContext &ctx) {
  const Shape &x = ctx.in(0).shape;
  const std::vector<int64_t> named = axesOf(ctx);
  if (named.empty())
    ctx.fail("attribute 'axes': missing");
  const auto rank = static_cast<int64_t>(x.size() + named.size());
  const std::set<int64_t> axes = distinctAxes(ctx, named, rank);
  Shape out;
  auto next = x.begin();
  for (int64_t d = 0; d < rank; ++d)
    out.push_back(axes.count(d) ? 1 : *next++);
  return {ValueInfo{ctx.in(0).dtype, out}};
}

void checkDropout(const Graph &, const Node &node) {
  if (node.inputs.size() > 2 && !node.inputs[2].empty())
    throw Error(node.describe() +
                ": input 'training_mode': training-mode Dropout is not supported");
}

/// An op whose output is its input 0's data in another shape, any element type: lowered as a
/// row-major copy, its gradient dY reshaped back; homogeneous.
OpDef copyOp(
    std::string name, std::set<std::string> attributes,
    std::function<OutputTypes(const ShapeContext &)> shape,
    std::function<reference::OpOutputs(const Node &, const reference::OpInputs &)> forward) {
  return OpDef{
      .name = std::move(name),
      .attributes = std::move(attributes),
      .floatInputs = 0,
      .shape = std::move(shape),
      .lower = lower::lowerReshape,
      .forward = std::move(forward),
      .backward = reference::reshapeBackward,
      .homogeneous = true,
  };
}

/// Identity: a copy op that changes nothing, removed by removeNoOps where it can be.
OpDef identityOp() {
  OpDef op = copyOp("Identity", {}, sameTypeAsInput, reference::identity);
  op.unaryElementwise = op.perChannel = op.noOp = true;
  return op;
}

/// Constant has no inputs, hence no input gradients.
reference::InputGradients noInputGradients(const reference::BackwardArgs &) { return {}; }

} // namespace

std::vector<OpDef> shapeOps() {
  return {
      copyOp("Flatten", {"axis"}, flattenShape, reference::flatten),
      copyOp("Reshape", {"allowzero"}, reshapeShape, reference::reshape),
      copyOp("Squeeze", {"axes"}, squeezeShape, reference::squeeze),
      copyOp("Unsqueeze", {"axes"}, unsqueezeShape, reference::unsqueeze),
      identityOp(),
      OpDef{
          .name = "Dropout",
          .attributes = {"ratio", "seed", "is_test"},
          .floatAttributes = {"ratio"},
          .maxOutputs = 2,
          .floatInputs = 1,
          .check = checkDropout,
          .shape = sameTypeAsInput,
          .removedBy = "removeNoOps",
          .forward = reference::dropout,
          .trainingForward = reference::identity,
          .backward = reference::reshapeBackward,
          .unaryElementwise = true,
          .perChannel = true,
          .noOp = true,
          .homogeneous = true,
      },
      OpDef{
          .name = "Concat",
          .attributes = {"axis"},
          .floatInputs = 0,
          .shape = concatShape,
          .lower = lower::lowerConcat,
          .forward = reference::concat,
          .backward = reference::concatBackward,
      },
      OpDef{
          .name = "Constant",
          .attributes = {"value", "value_float", "value_floats", "value_int", "value_ints"},
          .floatInputs = 0,
          .shape = constantShape,
          .removedBy = "foldConstants",
          .forward = reference::constant,
          .backward = noInputGradients,
      },
  };
}

} // namespace nasc::ir::ops
