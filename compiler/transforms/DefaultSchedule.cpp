#include "compiler/transforms/DefaultSchedule.h"

#include "compiler/transforms/BandLookup.h"
#include "compiler/transforms/Primitives.h"
#include "compiler/transforms/TransformErrors.h"
#include "polyhedral/ParallelLoops.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace nasc::compiler {

namespace {

bool isReductionDim(const ir::Statement &st, size_t d) {
  return d < st.reduction.size() && st.reduction[d];
}

bool hasReductionDims(const ir::Statement &st) {
  return std::any_of(st.reduction.begin(), st.reduction.end(), [](bool r) { return r; });
}

void collectLoads(const ir::Expr &e, std::vector<const ir::Access *> &out) {
  if (e.op == ir::Expr::Op::Load)
    out.push_back(&e.access);
  for (const ir::Expr &arg : e.args)
    collectLoads(arg, out);
}

bool usesIterator(const ir::Access &access, size_t d) {
  return std::any_of(access.index.begin(), access.index.end(),
                     [d](const ir::AffineExpr &e) { return d < e.coeffs.size() && e.coeffs[d] != 0; });
}

std::vector<int> identityOrder(size_t depth) {
  std::vector<int> order(depth);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

/// Builds a trace step by step, applying each step to keep the current schedule.
class TraceBuilder {
public:
  TraceBuilder(const poly::Scop &scop, const poly::Dependences &deps, const std::string &node)
      : current_(scop), deps_(deps) {
    trace_.node = node;
  }

  /// Appends `step` if it applies; returns whether it did.
  bool tryStep(const ScheduleStep &step) {
    try {
      current_.schedule = applyStep(current_, deps_, step);
    } catch (const IllegalTransformation &) {
      return false;
    }
    trace_.steps.push_back(step);
    return true;
  }

  void interchangeToDefault(const ir::Statement &st) {
    std::vector<int> order = defaultLoopOrder(st);
    if (order != identityOrder(st.depth()))
      tryStep({"interchange", {st.name}, {{"order", order}}});
  }

  /// Unroll-and-jam of defaultJamDimension by kJamFactor: split it, move its inner part to the
  /// innermost position (so each iteration of the vectorized loop runs the statement for
  /// kJamFactor values of it, sharing the loads it does not index), unroll that part.
  void jam(const ir::Statement &st) {
    std::optional<size_t> dim = defaultJamDimension(st);
    if (!dim)
      return;
    std::vector<int> order = defaultLoopOrder(st);
    int position = static_cast<int>(std::find(order.begin(), order.end(), static_cast<int>(*dim)) -
                                    order.begin());
    int factor = static_cast<int>(std::min<int64_t>(kJamFactor, st.extents[*dim]));
    if (!tryStep({"split", {st.name}, {{"member", {position}}, {"factor", {factor}}, {"band", {0}}}}))
      return;
    std::vector<int> moved(order.size() + 1);
    std::iota(moved.begin(), moved.end(), 0);
    moved.erase(moved.begin() + position + 1);
    moved.push_back(position + 1);
    tryStep({"interchange", {st.name}, {{"order", moved}}});
    tryStep({"unroll", {st.name}, {{"member", {static_cast<int>(moved.size()) - 1}},
                                   {"factor", {factor}}, {"band", {0}}}});
  }

  void parallelizeOutermost(const ir::Statement &st) {
    if (st.depth() == 0)
      return;
    isl::schedule_node_band band = statementBand(current_, st.name, 0, "parallelize");
    int member = poly::outermostParallelMember(current_, deps_, band);
    if (member >= 0)
      tryStep({"parallelize", {st.name}, {{"member", {member}}, {"band", {0}}}});
  }

  KernelSchedule trace() const { return trace_; }

private:
  poly::Scop current_;
  const poly::Dependences &deps_;
  KernelSchedule trace_;
};

} // namespace

std::optional<size_t> defaultJamDimension(const ir::Statement &st) {
  std::vector<int> order = defaultLoopOrder(st);
  if (order == identityOrder(st.depth()))
    return std::nullopt;
  size_t innermost = static_cast<size_t>(order.back());
  std::vector<const ir::Access *> loads;
  collectLoads(st.value, loads);
  std::vector<const ir::Access *> streamed;
  for (const ir::Access *load : loads)
    if (usesIterator(*load, innermost))
      streamed.push_back(load);
  std::optional<size_t> best;
  for (size_t d = 0; d < st.depth(); ++d) {
    bool reused = std::none_of(streamed.begin(), streamed.end(),
                               [d](const ir::Access *a) { return usesIterator(*a, d); });
    if (d == innermost || isReductionDim(st, d) || !reused || streamed.empty() ||
        st.extents[d] < 2)
      continue;
    if (!best || st.extents[d] > st.extents[*best])
      best = d;
  }
  return best;
}

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

KernelSchedule defaultTrace(const poly::Scop &scop, const poly::Dependences &deps,
                            const ir::Kernel &kernel, const std::string &node) {
  TraceBuilder builder(scop, deps, node);
  for (const ir::Statement &st : kernel.statements) {
    builder.interchangeToDefault(st);
    builder.jam(st);
    builder.parallelizeOutermost(st);
  }
  return builder.trace();
}

} // namespace nasc::compiler
