// Slice (ONNX Slice-10/13, constant starts / ends / axes / steps; geometry in sliceAxes).
// Lowered to one copy statement over the output, reading input index
// start + step·i along each sliced axis (ir/passes sliceAxes resolves the constant inputs).
#include "ir/Error.h"
#include "ir/lower/LowerContext.h"
#include "ir/lower/Statements.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"
#include "ir/passes/ShapeInference.h"

namespace nasc::ir::lower {

namespace {

std::vector<SliceAxis> resolvedAxes(const LowerContext &ctx, const Node &node, const Shape &in,
                                    const Shape &out) {
  std::vector<SliceAxis> axes;
  try {
    axes = sliceAxes(ctx.graph(), node, in);
  } catch (const Error &e) {
    throw Error(ctx.graph().source + ": " + e.what());
  }
  Shape expected = in;
  for (const SliceAxis &a : axes)
    expected[static_cast<size_t>(a.axis)] = a.count;
  if (expected != out)
    throw Error(ctx.where(node, "output " + shapeToString(out) + " differs from the sliced shape " +
                                    shapeToString(expected)));
  return axes;
}

void lowerSlice(LowerContext &ctx, const Node &node) {
  if (node.inputs.size() < 3 || node.outputs.empty())
    throw Error(ctx.where(node, "needs inputs data, starts, ends and an output"));
  const Shape &in = ctx.shape(node.inputs[0]);
  const Shape &out = ctx.shape(node.outputs[0]);
  const std::vector<SliceAxis> axes = resolvedAxes(ctx, node, in, out);
  if (numElements(out) == 0)
    throw Error(ctx.where(node, "an empty output " + shapeToString(out) + " is not supported"));
  KernelBuilder kb(ctx, node.name.empty() ? "slice" : node.name);
  const int x = kb.tensor(node.inputs[0]);
  Statement st = elementStatement(kb.tensor(node.outputs[0]), out);
  Access read = iterAccess(x, st, 0, out.size());
  for (const SliceAxis &a : axes)
    read.index[static_cast<size_t>(a.axis)] =
        iter(st, static_cast<size_t>(a.axis), a.step) + a.start;
  st.value = load(std::move(read));
  kb.add(std::move(st));
  kb.emit({node.name});
}

} // namespace

} // namespace nasc::ir::lower

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
      .homogeneous = true,
  }};
}

} // namespace nasc::ir::ops
