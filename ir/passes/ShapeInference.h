// Shape inference: gives every value of a graph its dtype and static shape.
#pragma once

#include "ir/Graph.h"

namespace nasc::ir {

/// Infers dtype and shape of every node output, in node order, from the graph inputs and
/// initializers, by each op's OpDef::shape rule (ir/ops; ONNX operator spec shape rules; window
/// ops follow WindowGeometry.h). A shape already recorded for an output (an ONNX value_info or
/// graph output) must equal the inferred one. Throws nasc::Error naming the file and node on an
/// unknown op, an input without shape, a non-float32 input where OpDef::floatInputs forbids it,
/// or inconsistent shapes.
void inferShapes(Graph &graph);

/// One sliced axis of a Slice: output index i along `axis` reads input index start + step·i,
/// 0 <= i < count (step may be negative; start is then the highest index read).
struct SliceAxis {
  int64_t axis = 0;
  int64_t start = 0;
  int64_t step = 1;
  int64_t count = 0;
};

/// The sliced axes of Slice `node` (ONNX Slice-10/13: inputs data, starts, ends, optional axes,
/// optional steps; the last four int64 initializers) on data of shape `input`, in the order of
/// 'starts'. Negative starts / ends / axes count from the end; starts and ends are clamped to
/// [0, dim] (step > 0) or [0, dim-1] / [-1, dim-1] (step < 0); count = max(0, ceil((end - start) /
/// step)). Throws nasc::Error naming the node and input for a non-constant or non-int64 input,
/// lengths that differ, an axis out of range or repeated, a zero step.
std::vector<SliceAxis> sliceAxes(const Graph &graph, const Node &node, const Shape &input);

/// Per-axis geometry of a Resize: output extents and the scale of each axis (output / input
/// coordinates: the 'scales' entry, or output / input extent when 'sizes' is given).
struct ResizeAxes {
  Shape output;
  std::vector<double> scales;
};

/// The geometry of Resize `node` (ONNX Resize-11/13: inputs X, roi, scales, sizes; "" for an
/// omitted input; scales a float32 and sizes an int64 initializer, exactly one non-empty) on X of
/// shape `input`: output extent floor(in · scale) from scales, or sizes itself. Throws nasc::Error
/// naming the node and attribute or input for mode other than 'nearest', a non-constant scales /
/// sizes, both or neither given, a wrong entry count, a non-positive scale or output extent, and
/// tf_crop_and_resize with scales.
ResizeAxes resizeAxes(const Graph &graph, const Node &node, const Shape &input);

/// numpy (multidirectional) broadcast of two shapes, ONNX "Broadcasting in ONNX"; throws
/// nasc::Error with `context` when the shapes are not broadcastable.
Shape broadcastShapes(const Shape &a, const Shape &b, const std::string &context);

} // namespace nasc::ir
