// Row-major copies whose indices stay affine (Flatten, Reshape, Squeeze, Unsqueeze, Identity and
// graph-output copies). The dimensions split into groups of equal element count; a
// group merging input dims into one output dim iterates the input dims, a group splitting one
// input dim iterates the output dims, and a mixed group iterates both, tied by an equality.
#include "ir/lower/Copy.h"
#include "ir/Error.h"
#include "ir/lower/Statements.h"

namespace nasc::ir::lower {

namespace {

/// Consecutive input dims `in` and output dims `out` holding the same elements.
struct DimGroup {
  std::vector<size_t> in, out;
  bool iterateIn() const { return out.size() <= 1 || in.size() > 1; }
  bool iterateOut() const { return out.size() > 1; }
};

/// The finest grouping of shapes `a` and `b` (same nonzero element count) into DimGroups.
std::vector<DimGroup> dimGroups(const Shape &a, const Shape &b) {
  std::vector<DimGroup> groups;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    DimGroup g;
    int64_t pa = 1, pb = 1;
    auto takeIn = [&] {
      pa *= a[i];
      g.in.push_back(i++);
    };
    auto takeOut = [&] {
      pb *= b[j];
      g.out.push_back(j++);
    };
    if (i < a.size())
      takeIn();
    if (j < b.size())
      takeOut();
    while (pa != pb) {
      if (pa < pb && i < a.size())
        takeIn();
      else if (pb < pa && j < b.size())
        takeOut();
      else
        throw Error("reshape of " + shapeToString(a) + " into " + shapeToString(b) +
                    ": element counts differ");
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

/// Σ_d it(pos[d]) · (product of shape[d'] for the later dims d' of `dims`).
AffineExpr linearIndex(const Statement &st, const std::vector<size_t> &dims, const Shape &shape,
                       const std::vector<size_t> &pos) {
  AffineExpr e = constant(st, 0);
  int64_t stride = 1;
  for (size_t k = dims.size(); k-- > 0;) {
    e = e + iter(st, pos[dims[k]], stride);
    stride *= shape[dims[k]];
  }
  return e;
}

/// out[b-index] = in[a-index] over every element, with the iterators chosen per DimGroup.
Statement copyStatement(const Shape &a, const Shape &b, int in, int out) {
  std::vector<DimGroup> groups = dimGroups(a, b);
  std::vector<std::string> inNames = elementIterators(a.size());
  std::vector<std::string> outNames = elementIterators(b.size(), "o");
  std::vector<std::string> names;
  std::vector<int64_t> extents;
  std::vector<size_t> inPos(a.size()), outPos(b.size());
  auto addIterator = [&](size_t &pos, const std::string &name, int64_t extent) {
    pos = names.size();
    names.push_back(name);
    extents.push_back(extent);
  };
  for (const DimGroup &g : groups) {
    for (size_t d : g.iterateIn() ? g.in : std::vector<size_t>{})
      addIterator(inPos[d], inNames[d], a[d]);
    for (size_t d : g.iterateOut() ? g.out : std::vector<size_t>{})
      addIterator(outPos[d], outNames[d], b[d]);
  }
  Statement st = makeStatement(names, extents);
  st.write = {out, std::vector<AffineExpr>(b.size())};
  st.value = load({in, std::vector<AffineExpr>(a.size())});
  for (const DimGroup &g : groups) {
    AffineExpr linIn = g.iterateIn() ? linearIndex(st, g.in, a, inPos) : constant(st, 0);
    AffineExpr linOut = g.iterateOut() ? linearIndex(st, g.out, b, outPos) : constant(st, 0);
    for (size_t d : g.in)
      st.value.access.index[d] = g.iterateIn() ? iter(st, inPos[d]) : linOut;
    for (size_t d : g.out)
      st.write.index[d] = g.iterateOut() ? iter(st, outPos[d]) : linIn;
    if (g.iterateIn() && g.iterateOut())
      st.constraints.push_back({linIn - linOut, true});
  }
  return st;
}

} // namespace

void lowerCopy(LowerContext &ctx, const std::string &name, const std::string &from, int to,
               std::vector<std::string> nodes) {
  KernelBuilder kb(ctx, name);
  int in = kb.tensor(from);
  int out = kb.bufferTensor(to);
  if (numElements(kb.shape(in)) != numElements(kb.shape(out)))
    throw Error(ctx.graph().source + ": copy of '" + from + "' " + shapeToString(kb.shape(in)) +
                " into " + shapeToString(kb.shape(out)) + ": element counts differ");
  if (numElements(kb.shape(in)) == 0)
    return;
  kb.add(copyStatement(kb.shape(in), kb.shape(out), in, out));
  kb.emit(std::move(nodes));
}

} // namespace nasc::ir::lower
