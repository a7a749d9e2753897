#include "ir/lower/Window.h"

#include "ir/Error.h"
#include "ir/lower/Statements.h"

#include <algorithm>

namespace nasc::ir::lower {

namespace {

/// Attribute `attr` of `count` values, each at least `minimum`; `count` times `fallback` if absent.
std::vector<int64_t> spatialAttr(const std::string &where, const Node &node,
                                 const std::string &attr, size_t count, int64_t fallback,
                                 int64_t minimum) {
  std::vector<int64_t> v = node.getInts(attr, std::vector<int64_t>(count, fallback));
  if (v.size() != count)
    throw Error(where + ": attribute '" + attr + "' must have " + std::to_string(count) +
                " values, has " + std::to_string(v.size()));
  for (int64_t x : v)
    if (x < minimum)
      throw Error(where + ": attribute '" + attr + "' has the invalid value " + std::to_string(x));
  return v;
}

int64_t dilatedKernel(const WindowDim &d) { return (d.kernel - 1) * d.dilation + 1; }

void setAutoPads(WindowDim &d, const std::string &autoPad) {
  int64_t total = std::max<int64_t>(0, (d.output - 1) * d.stride + dilatedKernel(d) - d.input);
  d.padBegin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
  d.padEnd = total - d.padBegin;
}

void checkOutput(const std::string &where, const WindowDim &d, bool ceilMode, size_t axis) {
  int64_t span = d.input + d.padBegin + d.padEnd - dilatedKernel(d);
  int64_t floorOut = span >= 0 ? span / d.stride + 1 : 0;
  int64_t ceilOut = span >= 0 ? (span + d.stride - 1) / d.stride + 1 : 0;
  bool ok = d.output == floorOut || (ceilMode && d.output == ceilOut);
  if (!ok || d.output <= 0)
    throw Error(where + ": output size " + std::to_string(d.output) + " of spatial axis " +
                std::to_string(axis) + " does not follow from the input size, kernel, " +
                "strides, dilations and pads (expected " + std::to_string(floorOut) +
                (ceilMode ? " or " + std::to_string(ceilOut) : std::string()) + ")");
}

/// The input index out·stride + k·dilation − padBegin, with `out` and `k` the iterators of
/// `st` at positions outIter and kernelIter.
AffineExpr windowIndex(const Statement &st, size_t outIter, size_t kernelIter,
                       const WindowDim &dim) {
  return iter(st, outIter, dim.stride) + iter(st, kernelIter, dim.dilation) + (-dim.padBegin);
}

/// Restricts `st` to 0 <= index <= input − 1, adding only the bounds the box does not imply.
void constrainToInput(Statement &st, const AffineExpr &index, const WindowDim &dim) {
  int64_t highest = (dim.output - 1) * dim.stride + (dim.kernel - 1) * dim.dilation - dim.padBegin;
  if (dim.padBegin > 0)
    st.constraints.push_back({index, false});
  if (highest > dim.input - 1)
    st.constraints.push_back({index * -1 + (dim.input - 1), false});
}

/// The last `rank` of `names` when there are enough, else prefix0, prefix1, ...
std::vector<std::string> spatialNames(const std::vector<std::string> &names,
                                      const std::string &prefix, size_t rank) {
  if (rank <= names.size())
    return std::vector<std::string>(names.end() - static_cast<std::ptrdiff_t>(rank), names.end());
  std::vector<std::string> generic;
  for (size_t i = 0; i < rank; ++i)
    generic.push_back(prefix + std::to_string(i));
  return generic;
}

} // namespace

std::vector<WindowDim> windowDims(const std::string &where, const Node &node, const Shape &input,
                                  const Shape &kernel, const Shape &output, bool ceilMode) {
  size_t n = input.size();
  auto strides = spatialAttr(where, node, "strides", n, 1, 1);
  auto dilations = spatialAttr(where, node, "dilations", n, 1, 1);
  auto pads = spatialAttr(where, node, "pads", 2 * n, 0, 0);
  std::string autoPad = node.getString("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    throw Error(where + ": attribute 'auto_pad': value '" + autoPad + "' is not supported");
  std::vector<WindowDim> dims(n);
  for (size_t k = 0; k < n; ++k) {
    WindowDim &d = dims[k];
    d = {input[k], output[k], kernel[k], strides[k], dilations[k], pads[k], pads[n + k]};
    if (autoPad == "VALID")
      d.padBegin = d.padEnd = 0;
    else if (autoPad != "NOTSET")
      setAutoPads(d, autoPad);
    checkOutput(where, d, ceilMode, k);
  }
  return dims;
}

Shape spatialDims(const Shape &shape) { return Shape(shape.begin() + 2, shape.end()); }

std::vector<std::string> outputIterators(size_t rank) {
  return spatialNames({"od", "oh", "ow"}, "o", rank);
}

std::vector<std::string> kernelIterators(size_t rank) {
  return spatialNames({"q", "r", "s"}, "r", rank);
}

std::vector<AffineExpr> windowIndices(Statement &st, size_t outFirst, size_t kernelFirst,
                                      const std::vector<WindowDim> &dims) {
  std::vector<AffineExpr> indices;
  for (size_t i = 0; i < dims.size(); ++i) {
    indices.push_back(windowIndex(st, outFirst + i, kernelFirst + i, dims[i]));
    constrainToInput(st, indices.back(), dims[i]);
  }
  return indices;
}

std::vector<int64_t> windowCounts(const WindowDim &dim, int64_t lo, int64_t hi) {
  std::vector<int64_t> counts(static_cast<size_t>(dim.output), 0);
  for (int64_t o = 0; o < dim.output; ++o)
    for (int64_t k = 0; k < dim.kernel; ++k) {
      int64_t x = o * dim.stride + k * dim.dilation - dim.padBegin;
      counts[static_cast<size_t>(o)] += (x >= lo && x <= hi) ? 1 : 0;
    }
  return counts;
}

} // namespace nasc::ir::lower
