// Relu, Clip (ONNX Clip-6/11/13) and the broadcasting binary ops Add, Sub, Mul, Div.
#include "ir/lower/Ops.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"
#include "ir/passes/ShapeInference.h"

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
    std::function<reference::OpOutputs(const Node &, const reference::OpInputs &)> forward) {
  return OpDef{
      .name = std::move(name),
      .floatInputs = floatInputs,
      .shape = broadcastShape,
      .lower = lower::lowerBinary,
      .forward = std::move(forward),
  };
}

} // namespace

std::vector<OpDef> elementwiseOps() {
  OpDef add = binaryOp("Add", 0, reference::add);
  add.backward = reference::addBackward;
  return {
      OpDef{
          .name = "Relu",
          .shape = sameTypeAsInput,
          .lower = lower::lowerRelu,
          .forward = reference::relu,
          .backward = reference::reluBackward,
      },
      OpDef{
          .name = "Clip",
          .attributes = {"min", "max"},
          .shape = sameTypeAsInput,
          .lower = lower::lowerClip,
          .forward = reference::clip,
      },
      std::move(add),
      binaryOp("Sub", OpDef::kAllInputs, reference::sub),
      binaryOp("Mul", OpDef::kAllInputs, reference::mul),
      binaryOp("Div", OpDef::kAllInputs, reference::div),
  };
}

} // namespace nasc::ir::ops
