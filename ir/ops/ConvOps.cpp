// Conv (ONNX Conv-11): N×C×D1×... input, K×C/group×R1×... weight, optional bias K.
#include "ir/lower/Ops.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"
#include "ir/passes/WindowGeometry.h"

namespace nasc::ir::ops {

namespace {

OutputTypes convShape(const ShapeContext &ctx) {
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

} // namespace

std::vector<OpDef> convOps() {
  return {OpDef{
      .name = "Conv",
      .attributes = {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"},
      .check = checkAutoPad,
      .shape = convShape,
      .lower = lower::lowerConv,
      .forward = reference::conv,
      .backward = reference::convBackward,
      .weightGradients = reference::convWeightGradients,
  }};
}

} // namespace nasc::ir::ops
