#include "compiler/transforms/DefaultSchedule.h"

#include "compiler/transforms/Interchange.h"

#include <algorithm>
#include <numeric>

namespace nasc::compiler {

namespace {

bool isReductionDim(const ir::Statement &st, size_t d) {
  return d < st.reduction.size() && st.reduction[d];
}

bool hasReductionDims(const ir::Statement &st) {
  return std::any_of(st.reduction.begin(), st.reduction.end(), [](bool r) { return r; });
}

std::vector<int> identityOrder(size_t depth) {
  std::vector<int> order(depth);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

/// interchange(scop, deps, statement, order), or `scop.schedule` if that is illegal.
isl::schedule interchangeIfLegal(const poly::Scop &scop, const poly::Dependences &deps,
                                 const std::string &statement, const std::vector<int> &order) {
  try {
    return interchange(scop, deps, statement, order);
  } catch (const IllegalTransformation &) {
    return scop.schedule;
  }
}

} // namespace

std::vector<int> defaultLoopOrder(const ir::Statement &st) {
  std::vector<int> identity = identityOrder(st.depth());
  if (st.update == ir::Update::Assign || !hasReductionDims(st))
    return identity;
  std::vector<int> outer, reduction;
  for (int d : identity)
    (isReductionDim(st, static_cast<size_t>(d)) ? reduction : outer).push_back(d);
  if (outer.empty())
    return identity;
  int innermost = outer.back();
  outer.pop_back();
  outer.insert(outer.end(), reduction.begin(), reduction.end());
  outer.push_back(innermost);
  return outer;
}

isl::schedule defaultSchedule(const poly::Scop &scop, const poly::Dependences &deps,
                              const ir::Kernel &kernel) {
  poly::Scop current = scop;
  for (const auto &st : kernel.statements) {
    std::vector<int> order = defaultLoopOrder(st);
    if (order == identityOrder(st.depth()))
      continue;
    current.schedule = interchangeIfLegal(current, deps, st.name, order);
  }
  return current.schedule;
}

} // namespace nasc::compiler
