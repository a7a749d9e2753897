// MaxPool, AveragePool (ONNX MaxPool-12, AveragePool-11) and GlobalAveragePool, GlobalMaxPool.
#include "ir/Error.h"
#include "ir/lower/Ops.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"
#include "ir/passes/WindowGeometry.h"

#include <algorithm>

namespace nasc::ir::ops {

namespace {

void checkMaxPool(const Graph &graph, const Node &node) {
  checkAutoPad(graph, node);
  requireAttribute(node, "storage_order", node.getInt("storage_order", 0) == 0,
                   "value 1 (column-major indices) is not supported");
  if (!node.has("kernel_shape"))
    throw Error(node.describe() + ": attribute 'kernel_shape': missing");
}

void checkAveragePool(const Graph &graph, const Node &node) {
  checkAutoPad(graph, node);
  if (!node.has("kernel_shape"))
    throw Error(node.describe() + ": attribute 'kernel_shape': missing");
}

OutputTypes poolShape(const ShapeContext &ctx) {
  const Shape &x = ctx.in(0).shape;
  if (!ctx.node.has("kernel_shape"))
    ctx.fail("attribute 'kernel_shape': missing");
  WindowGeometry g = windowGeometry(ctx.node, x, ctx.node.getInts("kernel_shape", {}));
  Shape out{x[0], x[1]};
  out.insert(out.end(), g.outputSpatial.begin(), g.outputSpatial.end());
  return {ValueInfo{DType::Float32, out}};
}

OutputTypes globalPoolShape(const ShapeContext &ctx) {
  Shape out = ctx.in(0).shape;
  if (out.size() < 3)
    ctx.fail("input " + shapeToString(out) + " must be N x C x spatial...");
  std::fill(out.begin() + 2, out.end(), 1);
  return {ValueInfo{DType::Float32, out}};
}

} // namespace

std::vector<OpDef> poolOps() {
  return {
      OpDef{
          .name = "MaxPool",
          .attributes = {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads",
                         "storage_order", "strides"},
          .extraOutputs = "Indices",
          .check = checkMaxPool,
          .shape = poolShape,
          .lower = lower::lowerMaxPool,
          .forward = reference::maxPool,
          .backward = reference::maxPoolBackward,
      },
      OpDef{
          .name = "AveragePool",
          .attributes = {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads",
                         "strides"},
          .check = checkAveragePool,
          .shape = poolShape,
          .lower = lower::lowerAveragePool,
          .forward = reference::averagePool,
          .backward = reference::averagePoolBackward,
      },
      OpDef{
          .name = "GlobalAveragePool",
          .shape = globalPoolShape,
          .lower = lower::lowerGlobalAveragePool,
          .forward = reference::globalAveragePool,
          .backward = reference::globalAveragePoolBackward,
      },
      OpDef{
          .name = "GlobalMaxPool",
          .shape = globalPoolShape,
          .lower = lower::lowerGlobalMaxPool,
          .forward = reference::globalMaxPool,
      },
  };
}

} // namespace nasc::ir::ops
