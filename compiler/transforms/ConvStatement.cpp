#include "compiler/transforms/ConvStatement.h"

#include "compiler/transforms/KernelEdit.h"

#include <vector>

namespace nasc::compiler {

namespace {

/// The iterators with a nonzero coefficient in `e`.
std::vector<size_t> iteratorsOf(const ir::AffineExpr &e) {
  std::vector<size_t> found;
  for (size_t i = 0; i < e.coeffs.size(); ++i)
    if (e.coeffs[i] != 0)
      found.push_back(i);
  return found;
}

/// Whether `e` is extent(local)·group + local.
bool isGroupIndex(const ir::Statement &st, const ir::AffineExpr &e, size_t group, size_t local) {
  return e.constant == 0 && iteratorsOf(e).size() == 2 && e.coeffs[local] == 1 &&
         e.coeffs[group] == st.extents[local];
}

/// The other iterator of a two-iterator expression `e` than `d`.
size_t otherIterator(const ir::AffineExpr &e, size_t d) {
  const std::vector<size_t> its = iteratorsOf(e);
  return its[0] == d ? its[1] : its[0];
}

/// Matches the channel indices `eo` (of O) and `ei` (of I) as dense (k, c) or grouped
/// (Kg·g + k', Cg·g + c'); returns why not, or "".
std::string matchChannels(const ir::Statement &st, const ir::AffineExpr &eo,
                          const ir::AffineExpr &ei, ConvStatement &conv) {
  const int k = plainIterator(eo), c = plainIterator(ei);
  if (k >= 0 && c >= 0) {
    conv.k = static_cast<size_t>(k);
    conv.c = static_cast<size_t>(c);
  } else {
    std::vector<size_t> shared;
    for (size_t d : iteratorsOf(eo))
      for (size_t e : iteratorsOf(ei))
        if (d == e)
          shared.push_back(d);
    const std::string form = "its channel indices " + eo.toString(st.iterators) + " (output) and " +
                             ei.toString(st.iterators) + " (input) are not ";
    if (shared.size() != 1 || iteratorsOf(eo).size() != 2 || iteratorsOf(ei).size() != 2)
      return form + "k and c, nor Kg·g + k' and Cg·g + c' of one group iterator g";
    conv.group = shared[0];
    conv.k = otherIterator(eo, shared[0]);
    conv.c = otherIterator(ei, shared[0]);
    if (!isGroupIndex(st, eo, shared[0], conv.k) || !isGroupIndex(st, ei, shared[0], conv.c) ||
        st.reducesOver(shared[0]))
      return form + "Kg·g + k' and Cg·g + c' (Kg, Cg the extents of k', c')";
    conv.groups = st.extents[shared[0]];
  }
  if (st.reducesOver(conv.k))
    return "its output channel index " + eo.toString(st.iterators) + " uses a reduction iterator";
  if (!st.reducesOver(conv.c))
    return "its input channel index " + ei.toString(st.iterators) +
           " does not use a reduction iterator";
  conv.outPerGroup = st.extents[conv.k];
  conv.inPerGroup = st.extents[conv.c];
  return "";
}

bool sameExpr(const ir::AffineExpr &a, const ir::AffineExpr &b) {
  return a.coeffs == b.coeffs && a.constant == b.constant;
}

/// Whether iterator `d` appears in an index of `st` other than the channel indices (index 1 of
/// O and I, 0 and 1 of W).
bool usedOutsideChannels(const ir::Statement &st, size_t d) {
  const ir::Access &o = st.write, &i = st.value.args[0].access, &w = st.value.args[1].access;
  auto uses = [&](const ir::Access &a, size_t from, size_t skip) {
    for (size_t x = from; x < a.index.size(); ++x)
      if (x != skip && a.index[x].coeffs[d] != 0)
        return true;
    return false;
  };
  return uses(o, 0, 1) || uses(i, 0, 1) || uses(w, 2, w.index.size());
}

/// Whether `st` is O += A · B with A and B loads.
bool isProductUpdate(const ir::Statement &st) {
  return st.update == ir::Update::Add && st.value.op == ir::Expr::Op::Mul &&
         st.value.args.size() == 2 && st.value.args[0].op == ir::Expr::Op::Load &&
         st.value.args[1].op == ir::Expr::Op::Load;
}

const char *const kNotProduct = "it is not an Add update of a product of two loads (O += I · W)";

} // namespace

std::string matchConvolution(const ir::Statement &st, ConvStatement &conv) {
  if (!isProductUpdate(st))
    return kNotProduct;
  const ir::Access &o = st.write, &i = st.value.args[0].access, &w = st.value.args[1].access;
  if (o.index.size() < 3 || i.index.size() != o.index.size() || w.index.size() != o.index.size())
    return "its output, input and weights are not of one rank >= 3 (N x C x spatial...)";
  ConvStatement match;
  match.out = o.tensor;
  match.in = i.tensor;
  match.weights = w.tensor;
  if (std::string why = matchChannels(st, o.index[1], i.index[1], match); !why.empty())
    return why;
  if (!sameExpr(w.index[0], o.index[1]) || plainIterator(w.index[1]) != static_cast<int>(match.c))
    return "its weights are not indexed W[k, c, ..] by its output and input channel indices";
  for (size_t d : {match.k, match.c})
    if (usedOutsideChannels(st, d))
      return "its channel iterator " + st.iterators[d] + " indexes more than the channels";
  if (match.group && usedOutsideChannels(st, *match.group))
    return "its group iterator " + st.iterators[*match.group] + " indexes more than the channels";
  conv = match;
  return "";
}

std::string matchConvStatement(const ir::Statement &st, ConvStatement &conv) {
  if (!isProductUpdate(st))
    return kNotProduct;
  if (!st.constraints.empty())
    return "its domain is not a box (apply pad_input first)";
  if (st.write.index.size() != 4 || st.value.args[0].access.index.size() != 4 ||
      st.value.args[1].access.index.size() != 4)
    return "its output, input and weights are not 4-d (NCHW, NCHW, OIHW)";
  return matchConvolution(st, conv);
}

} // namespace nasc::compiler
