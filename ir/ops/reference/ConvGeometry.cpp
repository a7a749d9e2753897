#include "ir/ops/reference/ConvGeometry.h"

#include "ir/ops/reference/OpSupport.h"

#include <algorithm>
#include <string>

namespace nasc::ir::reference {

namespace {

std::vector<int64_t> positiveInts(const ir::Node &node, const std::string &attr, size_t rank) {
  std::vector<int64_t> values = node.getInts(attr, std::vector<int64_t>(rank, 1));
  if (values.size() != rank)
    fail(node, "attribute '" + attr + "' has " + std::to_string(values.size()) +
                   " entries, expected " + std::to_string(rank));
  for (int64_t v : values)
    if (v <= 0)
      fail(node, "attribute '" + attr + "' must be positive, got " + std::to_string(v));
  return values;
}

int64_t effectiveKernel(const WindowGeometry &g, size_t d) {
  return (g.kernel[d] - 1) * g.dilations[d] + 1;
}

int64_t ceilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

void explicitPads(const ir::Node &node, WindowGeometry &g, bool ceilMode) {
  const size_t rank = g.input.size();
  std::vector<int64_t> pads = node.getInts("pads", std::vector<int64_t>(2 * rank, 0));
  if (pads.size() != 2 * rank)
    fail(node, "attribute 'pads' has " + std::to_string(pads.size()) + " entries, expected " +
                   std::to_string(2 * rank));
  for (int64_t p : pads)
    if (p < 0)
      fail(node, "attribute 'pads' must be non-negative, got " + std::to_string(p));
  g.padsBegin.assign(pads.begin(), pads.begin() + static_cast<long>(rank));
  g.padsEnd.assign(pads.begin() + static_cast<long>(rank), pads.end());
  for (size_t d = 0; d < rank; ++d) {
    const int64_t span = g.input[d] + g.padsBegin[d] + g.padsEnd[d] - effectiveKernel(g, d);
    int64_t out = (ceilMode ? ceilDiv(span, g.strides[d]) : floorDiv(span, g.strides[d])) + 1;
    if (ceilMode && out > 0 && (out - 1) * g.strides[d] >= g.input[d] + g.padsBegin[d])
      --out;
    g.output.push_back(out);
  }
}

void samePads(WindowGeometry &g, bool upper) {
  for (size_t d = 0; d < g.input.size(); ++d) {
    const int64_t out = ceilDiv(g.input[d], g.strides[d]);
    const int64_t total =
        std::max<int64_t>(0, (out - 1) * g.strides[d] + effectiveKernel(g, d) - g.input[d]);
    const int64_t small = total / 2;
    g.padsBegin.push_back(upper ? small : total - small);
    g.padsEnd.push_back(upper ? total - small : small);
    g.output.push_back(out);
  }
}

void validPads(WindowGeometry &g) {
  for (size_t d = 0; d < g.input.size(); ++d) {
    g.padsBegin.push_back(0);
    g.padsEnd.push_back(0);
    g.output.push_back(floorDiv(g.input[d] - effectiveKernel(g, d), g.strides[d]) + 1);
  }
}

} // namespace

WindowGeometry windowGeometry(const ir::Node &node, const std::vector<int64_t> &inputSpatial,
                              const std::vector<int64_t> &kernel, bool ceilMode) {
  const size_t rank = inputSpatial.size();
  WindowGeometry g;
  g.input = inputSpatial;
  g.kernel = kernel;
  if (g.kernel.size() != rank)
    fail(node, "kernel has " + std::to_string(kernel.size()) + " spatial dimensions, input has " +
                   std::to_string(rank));
  for (int64_t k : g.kernel)
    if (k <= 0)
      fail(node, "kernel sizes must be positive, got " + std::to_string(k));
  g.strides = positiveInts(node, "strides", rank);
  g.dilations = positiveInts(node, "dilations", rank);
  const std::string autoPad = node.getString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET")
    explicitPads(node, g, ceilMode);
  else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")
    samePads(g, autoPad == "SAME_UPPER");
  else if (autoPad == "VALID")
    validPads(g);
  else
    fail(node, "attribute 'auto_pad': value '" + autoPad + "' is not supported");
  for (int64_t out : g.output)
    if (out <= 0)
      fail(node, "window does not fit the input: output size " + std::to_string(out));
  return g;
}

Window3 embedIn3(const ir::Node &node, const WindowGeometry &geometry) {
  const size_t rank = geometry.input.size();
  if (rank < 1 || rank > 3)
    fail(node, std::to_string(rank) + " spatial dimensions are not supported (1 to 3)");
  Window3 w{};
  const size_t shift = 3 - rank;
  for (size_t d = 0; d < 3; ++d) {
    const bool real = d >= shift;
    const size_t s = d - shift;
    w.input[d] = real ? geometry.input[s] : 1;
    w.kernel[d] = real ? geometry.kernel[s] : 1;
    w.strides[d] = real ? geometry.strides[s] : 1;
    w.dilations[d] = real ? geometry.dilations[s] : 1;
    w.padsBegin[d] = real ? geometry.padsBegin[s] : 0;
    w.output[d] = real ? geometry.output[s] : 1;
  }
  return w;
}

} // namespace nasc::ir::reference
