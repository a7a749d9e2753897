// Resize (ONNX Resize-11/13, mode 'nearest'; geometry in resizeAxes).
#include "ir/lower/Ops.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"
#include "ir/passes/ShapeInference.h"

#include <set>

namespace nasc::ir::ops {

namespace {

/// Mode 'nearest' only; coordinate_transformation_mode and nearest_mode one of ONNX's.
void checkResize(const Graph &, const Node &node) {
  const std::string mode = node.getString("mode", "nearest");
  requireAttribute(node, "mode", mode == "nearest",
                   "value '" + mode + "' is not supported (only 'nearest')");
  static const std::set<std::string> transforms = {"half_pixel",           "pytorch_half_pixel",
                                                   "align_corners",        "asymmetric",
                                                   "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  const std::string transform = node.getString("coordinate_transformation_mode", "half_pixel");
  requireAttribute(node, "coordinate_transformation_mode", transforms.count(transform),
                   "value '" + transform + "' is not supported");
  static const std::set<std::string> roundings = {"round_prefer_floor", "round_prefer_ceil",
                                                  "floor", "ceil"};
  const std::string rounding = node.getString("nearest_mode", "round_prefer_floor");
  requireAttribute(node, "nearest_mode", roundings.count(rounding),
                   "value '" + rounding + "' is not supported");
}

OutputTypes resizeShape(const ShapeContext &ctx) {
  return {ValueInfo{DType::Float32, resizeAxes(ctx.graph, ctx.node, ctx.in(0).shape).output}};
}

} // namespace

std::vector<OpDef> resizeOps() {
  return {OpDef{
      .name = "Resize",
      .attributes = {"coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside",
                     "extrapolation_value", "mode", "nearest_mode"},
      .floatInputs = 1,
      .check = checkResize,
      .shape = resizeShape,
      .lower = lower::lowerResize,
      .forward = reference::resize,
      .backward = reference::resizeBackward,
  }};
}

} // namespace nasc::ir::ops
