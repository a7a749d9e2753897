// Resize (ONNX Resize-11/13, mode 'nearest'; geometry in resizeAxes).
// Lowered to one copy statement over the output. Along each
// resized axis the source index is floor((a·o + b) / d) for integers a, b, d derived from the
// coordinate_transformation_mode, the nearest_mode and the scale as a ratio p/q; the statement
// then iterates a source index s tied to o by d·s <= a·o + b <= d·s + d - 1 (affine, isl solves
// it). The mapping is checked against the spec's floating-point formula at every output index;
// axes where it differs (clamping, roi, inexact scales) are refused as not supported.
#include "ir/Error.h"
#include "ir/lower/LowerContext.h"
#include "ir/lower/Statements.h"
#include "ir/ops/Families.h"
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"
#include "ir/passes/ShapeInference.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

namespace nasc::ir::lower {

namespace {

/// Source index floor((a·o + b) / d) of output index o along one axis (d > 0).
struct NearestMap {
  int64_t a = 1, b = 0, d = 1;
  int64_t at(int64_t o) const {
    const int64_t n = a * o + b;
    return n >= 0 ? n / d : -((-n + d - 1) / d);
  }
};

/// One axis: input and output extents and the scale (output / input coordinates).
struct ResizeAxis {
  int64_t in, out;
  double scale;
};

/// The ONNX Resize-13 source index of output `o` (before clamping), in double precision as the
/// spec's reference: the coordinate transformation, then the nearest_mode rounding.
double specIndex(const std::string &transform, const std::string &rounding, const ResizeAxis &ax,
                 int64_t o) {
  const double x = static_cast<double>(o), in = static_cast<double>(ax.in),
               out = static_cast<double>(ax.out);
  double c = x / ax.scale;
  if (transform == "half_pixel" || (transform == "pytorch_half_pixel" && ax.out > 1))
    c = (x + 0.5) / ax.scale - 0.5;
  else if (transform == "pytorch_half_pixel" || (transform == "align_corners" && ax.out == 1))
    c = 0.0;
  else if (transform == "align_corners")
    c = x * (in - 1) / (out - 1);
  else if (transform == "tf_half_pixel_for_nn")
    c = (x + 0.5) / ax.scale;
  if (rounding == "round_prefer_floor")
    return std::ceil(c - 0.5);
  if (rounding == "round_prefer_ceil")
    return std::floor(c + 0.5);
  return rounding == "ceil" ? std::ceil(c) : std::floor(c);
}

/// The scale as p/q with the smallest q <= max(in, 64) within 1e-6 relative; {0, 0} if none.
std::pair<int64_t, int64_t> ratio(const ResizeAxis &ax) {
  for (int64_t q = 1; q <= std::max<int64_t>(ax.in, 64); ++q) {
    const double pq = ax.scale * static_cast<double>(q);
    const double p = std::round(pq);
    if (p >= 1 && std::abs(pq - p) <= 1e-6 * pq)
      return {static_cast<int64_t>(p), q};
  }
  return {0, 0};
}

/// Candidate floor((a·o + b) / d) of the coordinate (A·o + B) / D rounded by `rounding`.
NearestMap rounded(const std::string &rounding, int64_t A, int64_t B, int64_t D) {
  if (rounding == "floor")
    return {A, B, D};
  if (rounding == "ceil")
    return {A, B + D - 1, D};
  if (rounding == "round_prefer_floor")
    return {2 * A, 2 * B + D - 1, 2 * D};
  return {2 * A, 2 * B + D, 2 * D};
}

/// The exact quasi-affine map of one axis, or nullopt when there is none that equals the spec
/// (with its clamping) at every output index.
std::optional<NearestMap> nearestMap(const std::string &transform, const std::string &rounding,
                                     const ResizeAxis &ax) {
  const auto [p, q] = ratio(ax);
  if (p == 0 || transform == "tf_crop_and_resize")
    return std::nullopt;
  NearestMap m;
  if (transform == "asymmetric")
    m = rounded(rounding, q, 0, p);
  else if (transform == "half_pixel" || (transform == "pytorch_half_pixel" && ax.out > 1))
    m = rounded(rounding, 2 * q, q - p, 2 * p);
  else if (transform == "tf_half_pixel_for_nn")
    m = rounded(rounding, 2 * q, q, 2 * p);
  else if (transform == "align_corners" && ax.out > 1)
    m = rounded(rounding, ax.in - 1, 0, ax.out - 1);
  else
    m = {0, 0, 1};
  for (int64_t o = 0; o < ax.out; ++o) {
    const double want = std::min(std::max(specIndex(transform, rounding, ax, o), 0.0),
                                 static_cast<double>(ax.in - 1));
    if (m.at(o) < 0 || m.at(o) >= ax.in || static_cast<double>(m.at(o)) != want)
      return std::nullopt;
  }
  return m;
}

/// The statement out[o...] = X[src...]: one iterator per output axis, plus a source iterator
/// after each axis whose map is not affine (d does not divide a).
Statement copyStatement(const std::vector<NearestMap> &maps, const Shape &in, const Shape &out,
                        int x, int y) {
  const std::vector<std::string> outNames = elementIterators(out.size());
  const std::vector<std::string> srcNames = elementIterators(out.size(), "s");
  std::vector<std::string> names;
  std::vector<int64_t> extents;
  std::vector<size_t> outPos, srcPos(out.size(), 0);
  for (size_t k = 0; k < out.size(); ++k) {
    outPos.push_back(names.size());
    names.push_back(outNames[k]);
    extents.push_back(out[k]);
    if (maps[k].a % maps[k].d != 0) {
      srcPos[k] = names.size();
      names.push_back(srcNames[k]);
      extents.push_back(in[k]);
    }
  }
  Statement st = makeStatement(names, extents);
  st.write = Access{y, {}};
  Access read{x, {}};
  for (size_t k = 0; k < out.size(); ++k) {
    const NearestMap &m = maps[k];
    const AffineExpr o = iter(st, outPos[k]);
    st.write.index.push_back(o);
    if (m.a % m.d == 0) {
      read.index.push_back(o * (m.a / m.d) + NearestMap{0, m.b, m.d}.at(0));
      continue;
    }
    const AffineExpr numerator = o * m.a + m.b, low = iter(st, srcPos[k], m.d);
    st.constraints.push_back({numerator - low});
    st.constraints.push_back({low + (m.d - 1) - numerator});
    read.index.push_back(iter(st, srcPos[k]));
  }
  st.value = load(std::move(read));
  return st;
}

std::vector<NearestMap> axisMaps(const LowerContext &ctx, const Node &node, const Shape &in,
                                 const Shape &out) {
  ResizeAxes geometry;
  try {
    geometry = resizeAxes(ctx.graph(), node, in);
  } catch (const Error &e) {
    throw Error(ctx.graph().source + ": " + e.what());
  }
  if (geometry.output != out)
    throw Error(ctx.where(node, "output " + shapeToString(out) + " differs from the resized " +
                                    shapeToString(geometry.output)));
  const std::string transform = node.getString("coordinate_transformation_mode", "half_pixel");
  const std::string rounding = node.getString("nearest_mode", "round_prefer_floor");
  std::vector<NearestMap> maps;
  for (size_t k = 0; k < in.size(); ++k) {
    std::optional<NearestMap> m =
        nearestMap(transform, rounding, {in[k], out[k], geometry.scales[k]});
    if (!m)
      throw Error(ctx.where(node, "attribute 'coordinate_transformation_mode': '" + transform +
                                      "' with nearest_mode '" + rounding + "' on axis " +
                                      std::to_string(k) + " (" + std::to_string(in[k]) + " -> " +
                                      std::to_string(out[k]) +
                                      ") is not supported: the source index is not "
                                      "floor((a·o + b) / d) within the input (it needs "
                                      "clamping, a roi or an inexact scale)"));
    maps.push_back(*m);
  }
  return maps;
}

void lowerResize(LowerContext &ctx, const Node &node) {
  if (node.inputs.empty() || node.outputs.empty())
    throw Error(ctx.where(node, "needs an input and an output"));
  const Shape &in = ctx.shape(node.inputs[0]);
  const Shape &out = ctx.shape(node.outputs[0]);
  const std::vector<NearestMap> maps = axisMaps(ctx, node, in, out);
  KernelBuilder kb(ctx, node.name.empty() ? "resize" : node.name);
  const int x = kb.tensor(node.inputs[0]);
  kb.add(copyStatement(maps, in, out, x, kb.tensor(node.outputs[0])));
  kb.emit({node.name});
}

} // namespace

} // namespace nasc::ir::lower

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
      .floatAttributes = {"cubic_coeff_a", "extrapolation_value"},
      .floatInputs = 1,
      .check = checkResize,
      .shape = resizeShape,
      .lower = lower::lowerResize,
      .forward = reference::resize,
      .backward = reference::resizeBackward,
      .homogeneous = true,
  }};
}

} // namespace nasc::ir::ops
