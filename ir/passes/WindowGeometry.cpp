#include "ir/passes/WindowGeometry.h"

#include "ir/Error.h"

#include <algorithm>

namespace nasc::ir {

namespace {

std::vector<int64_t> perDimAttribute(const Node &node, const std::string &attr, size_t rank,
                                     int64_t fallback) {
  std::vector<int64_t> values = node.getInts(attr, std::vector<int64_t>(rank, fallback));
  if (values.size() != rank)
    throw Error(node.describe() + ": attribute '" + attr + "': expected " + std::to_string(rank) +
                " values, got " + std::to_string(values.size()));
  for (int64_t v : values)
    if (v < 1)
      throw Error(node.describe() + ": attribute '" + attr + "': values must be >= 1");
  return values;
}

void explicitPads(const Node &node, size_t rank, WindowGeometry &g) {
  std::vector<int64_t> pads = node.getInts("pads", std::vector<int64_t>(2 * rank, 0));
  if (pads.size() != 2 * rank)
    throw Error(node.describe() + ": attribute 'pads': expected " + std::to_string(2 * rank) +
                " values, got " + std::to_string(pads.size()));
  for (int64_t p : pads)
    if (p < 0)
      throw Error(node.describe() + ": attribute 'pads': negative pads are not supported");
  g.padsBegin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(rank));
  g.padsEnd.assign(pads.begin() + static_cast<std::ptrdiff_t>(rank), pads.end());
}

bool hasNonZero(const std::vector<int64_t> &values) {
  return std::any_of(values.begin(), values.end(), [](int64_t v) { return v != 0; });
}

int64_t ceilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -ceilDiv(-a, b); }

int64_t explicitOutput(int64_t in, int64_t padBegin, int64_t padEnd, int64_t effective,
                       int64_t stride, bool ceilMode) {
  const int64_t span = in + padBegin + padEnd - effective;
  if (!ceilMode)
    return floorDiv(span, stride) + 1;
  int64_t out = ceilDiv(span, stride) + 1;
  if ((out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

void resolveSamePads(const std::string &autoPad, int64_t in, int64_t out, int64_t effective,
                     int64_t stride, int64_t &padBegin, int64_t &padEnd) {
  const int64_t total = std::max<int64_t>(0, (out - 1) * stride + effective - in);
  padBegin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
  padEnd = total - padBegin;
}

} // namespace

WindowGeometry windowGeometry(const Node &node, const Shape &input,
                              const std::vector<int64_t> &kernel) {
  if (input.size() < 3)
    throw Error(node.describe() + ": input must be N x C x spatial..., got " +
                shapeToString(input));
  const size_t rank = input.size() - 2;
  if (kernel.size() != rank)
    throw Error(node.describe() + ": kernel has " + std::to_string(kernel.size()) +
                " spatial dims but the input has " + std::to_string(rank));
  WindowGeometry g;
  g.kernel = kernel;
  g.strides = perDimAttribute(node, "strides", rank, 1);
  g.dilations = perDimAttribute(node, "dilations", rank, 1);
  const std::string autoPad = node.getString("auto_pad", "NOTSET");
  const bool ceilMode = node.getInt("ceil_mode", 0) != 0;
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    throw Error(node.describe() + ": attribute 'auto_pad': value '" + autoPad +
                "' is not supported");
  explicitPads(node, rank, g);
  if (autoPad != "NOTSET" && hasNonZero(node.getInts("pads", {})))
    throw Error(node.describe() + ": attribute 'pads': not allowed with auto_pad " + autoPad);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t in = input[d + 2];
    const int64_t effective = (kernel[d] - 1) * g.dilations[d] + 1;
    int64_t out = 0;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out = ceilDiv(in, g.strides[d]);
      resolveSamePads(autoPad, in, out, effective, g.strides[d], g.padsBegin[d], g.padsEnd[d]);
    } else {
      out = explicitOutput(in, g.padsBegin[d], g.padsEnd[d], effective, g.strides[d], ceilMode);
    }
    if (out < 1)
      throw Error(node.describe() + ": window of size " + std::to_string(effective) +
                  " does not fit input " + shapeToString(input) + " (spatial dim " +
                  std::to_string(d) + ")");
    g.outputSpatial.push_back(out);
  }
  return g;
}

} // namespace nasc::ir
