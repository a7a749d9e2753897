// Slice (ONNX Slice-10/13, constant starts / ends / axes / steps; geometry in sliceAxes).
#include "ir/lower/Ops.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"
#include "ir/passes/ShapeInference.h"

namespace nasc::ir::ops {

namespace {

OutputTypes sliceShape(const ShapeContext &ctx) {
  Shape out = ctx.in(0).shape;
  for (const SliceAxis &a : sliceAxes(ctx.graph, ctx.node, out))
    out[a.axis] = a.count;
  return {ValueInfo{ctx.in(0).dtype, out}};
}

} // namespace

std::vector<OpDef> sliceOps() {
  return {OpDef{
      .name = "Slice",
      .floatInputs = 0,
      .shape = sliceShape,
      .lower = lower::lowerSlice,
      .forward = reference::slice,
      .backward = reference::sliceBackward,
  }};
}

} // namespace nasc::ir::ops
