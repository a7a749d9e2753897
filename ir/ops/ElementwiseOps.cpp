// Relu, Clip (ONNX Clip-6/11/13) and the broadcasting binary ops Add, Sub, Mul, Div.
// Lowered to one statement each, a broadcast dimension indexed with a 0 coefficient.
#include "ir/Error.h"
#include "ir/lower/LowerContext.h"
#include "ir/lower/Statements.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"
#include "ir/passes/ShapeInference.h"

#include <map>
#include <optional>

namespace nasc::ir::lower {

namespace {

void requireArity(const LowerContext &ctx, const Node &node, size_t inputs) {
  if (node.inputs.size() < inputs || node.outputs.empty())
    throw Error(ctx.where(node, "needs " + std::to_string(inputs) + " input(s) and an output"));
}

/// Whether `in` broadcasts to `out` under numpy rules.
bool broadcastsTo(const Shape &in, const Shape &out) {
  if (in.size() > out.size())
    return false;
  size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d)
    if (in[d] != out[lead + d] && in[d] != 1)
      return false;
  return true;
}

/// O = min(max(I, lo), hi) element-wise, each bound applied only if given (Relu: lo = 0).
void emitClamp(LowerContext &ctx, const Node &node, std::optional<float> lo,
               std::optional<float> hi) {
  const Shape &shape = ctx.shape(node.outputs[0]);
  if (ctx.shape(node.inputs[0]) != shape)
    throw Error(ctx.where(node, "input and output shapes differ"));
  KernelBuilder kb(ctx, node.name.empty() ? node.op_type : node.name);
  int in = kb.tensor(node.inputs[0]);
  Statement st = elementStatement(kb.tensor(node.outputs[0]), shape);
  st.value = load(iterAccess(in, st, 0, shape.size()));
  if (lo)
    st.value = binary(Expr::Op::Max, std::move(st.value), Expr::constant(*lo));
  if (hi)
    st.value = binary(Expr::Op::Min, std::move(st.value), Expr::constant(*hi));
  kb.add(std::move(st));
  kb.emit({node.name});
}

/// A Clip bound: input `index` (a one-element initializer) if given, else attribute `attr`
/// (opset < 11), else none.
std::optional<float> clipBound(const LowerContext &ctx, const Node &node, size_t index,
                               const std::string &attr) {
  if (node.inputs.size() > index && !node.inputs[index].empty()) {
    auto it = ctx.graph().initializers.find(node.inputs[index]);
    if (it == ctx.graph().initializers.end() || it->second.dtype != DType::Float32 ||
        it->second.f.size() != 1)
      throw Error(
          ctx.where(node, "input '" + node.inputs[index] + "' must be a constant float scalar"));
    return it->second.f[0];
  }
  if (node.has(attr))
    return node.getFloat(attr, 0.0f);
  return std::nullopt;
}

void lowerRelu(LowerContext &ctx, const Node &node) {
  requireArity(ctx, node, 1);
  emitClamp(ctx, node, 0.0f, std::nullopt);
}

void lowerClip(LowerContext &ctx, const Node &node) {
  requireArity(ctx, node, 1);
  emitClamp(ctx, node, clipBound(ctx, node, 1, "min"), clipBound(ctx, node, 2, "max"));
}

void lowerBinary(LowerContext &ctx, const Node &node) {
  static const std::map<std::string, Expr::Op> ops{{"Add", Expr::Op::Add},
                                                   {"Sub", Expr::Op::Sub},
                                                   {"Mul", Expr::Op::Mul},
                                                   {"Div", Expr::Op::Div}};
  requireArity(ctx, node, 2);
  const Shape &out = ctx.shape(node.outputs[0]);
  const Shape &a = ctx.shape(node.inputs[0]);
  const Shape &b = ctx.shape(node.inputs[1]);
  if (!broadcastsTo(a, out) || !broadcastsTo(b, out))
    throw Error(ctx.where(node, "inputs " + shapeToString(a) + " and " + shapeToString(b) +
                                    " do not broadcast to the output " + shapeToString(out)));
  KernelBuilder kb(ctx, node.name.empty() ? node.op_type : node.name);
  int ta = kb.tensor(node.inputs[0]);
  int tb = kb.tensor(node.inputs[1]);
  Statement st = elementStatement(kb.tensor(node.outputs[0]), out);
  st.value = binary(ops.at(node.op_type), load(broadcastAccess(ta, a, out, st)),
                    load(broadcastAccess(tb, b, out, st)));
  kb.add(std::move(st));
  kb.emit({node.name});
}

} // namespace

} // namespace nasc::ir::lower

namespace nasc::ir::ops {

namespace {

/// Numpy broadcast of inputs A and B ("Broadcasting in ONNX"), of one element type.
OutputTypes broadcastShape(const ShapeContext &ctx) {
  if (ctx.in(0).dtype != ctx.in(1).dtype)
    ctx.fail("inputs have different element types");
  return {ValueInfo{ctx.in(0).dtype,
                    broadcastShapes(ctx.in(0).shape, ctx.in(1).shape, ctx.node.describe())}};
}

/// A binary op with numpy broadcasting, lowered by lowerBinary.
OpDef binaryOp(
    std::string name, size_t floatInputs,
    std::function<reference::OpOutputs(const Node &, const reference::OpInputs &)> forward,
    std::function<reference::InputGradients(const reference::BackwardArgs &)> backward) {
  return OpDef{
      .name = std::move(name),
      .floatInputs = floatInputs,
      .shape = broadcastShape,
      .lower = lower::lowerBinary,
      .forward = std::move(forward),
      .backward = std::move(backward),
  };
}

} // namespace

std::vector<OpDef> elementwiseOps() {
  return {
      OpDef{
          .name = "Relu",
          .shape = sameTypeAsInput,
          .lower = lower::lowerRelu,
          .forward = reference::relu,
          .backward = reference::reluBackward,
          .unaryElementwise = true,
          .perChannel = true,
          .homogeneous = true,
      },
      OpDef{
          .name = "Clip",
          .attributes = {"min", "max"},
          .floatAttributes = {"min", "max"},
          .shape = sameTypeAsInput,
          .lower = lower::lowerClip,
          .forward = reference::clip,
          .backward = reference::clipBackward,
          .unaryElementwise = true,
          .perChannel = true,
      },
      binaryOp("Add", 0, reference::add, reference::addBackward),
      binaryOp("Sub", OpDef::kAllInputs, reference::sub, reference::subBackward),
      binaryOp("Mul", OpDef::kAllInputs, reference::mul, reference::mulBackward),
      binaryOp("Div", OpDef::kAllInputs, reference::div, reference::divBackward),
  };
}

} // namespace nasc::ir::ops
