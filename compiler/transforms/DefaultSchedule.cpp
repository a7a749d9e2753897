#include "compiler/transforms/DefaultSchedule.h"

#include "compiler/transforms/BandLookup.h"
#include "compiler/transforms/PadInput.h"
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

/// Whether every load that uses iterator `d` moves by 1 element per iteration of it (it is the
/// last index, with coefficient 1): a vector over `d` then reads contiguous elements.
bool unitStride(const ir::Statement &st, size_t d) {
  std::vector<const ir::Access *> loads;
  collectLoads(st.value, loads);
  return std::all_of(loads.begin(), loads.end(), [d](const ir::Access *a) {
    for (size_t i = 0; i + 1 < a->index.size(); ++i)
      if (d < a->index[i].coeffs.size() && a->index[i].coeffs[d] != 0)
        return false;
    return !usesIterator(*a, d) || a->index.back().coeffs[d] == 1;
  });
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

  /// The register tile of a statement over a box (docs/performance.md): split
  /// defaultJamDimension J by kTileRows and the innermost output dimension O by a width of
  /// kTileWidths that divides it, order the loops (outer outputs with J0 and O0, reductions, J1,
  /// O1) and unroll J1. Returns false, adding nothing, when the statement does not qualify.
  bool registerTile(const ir::Statement &st) {
    std::optional<RegisterTile> tile = defaultRegisterTile(st);
    if (!tile)
      return false;
    const int J = static_cast<int>(tile->jam), O = static_cast<int>(tile->width);
    auto mapped = [&](int d) { return d + (d > J ? 1 : 0) + (d > O ? 1 : 0); };
    std::vector<int> order, reductions;
    for (int d = 0; d < static_cast<int>(st.depth()); ++d)
      (isReductionDim(st, static_cast<size_t>(d)) ? reductions : order).push_back(mapped(d));
    order.insert(order.end(), reductions.begin(), reductions.end());
    order.push_back(J + 1);
    order.push_back(mapped(O) + 1);
    return tryStep({"split", {st.name}, {{"member", {J}}, {"factor", {tile->rows}}, {"band", {0}}}}) &&
           tryStep({"split", {st.name},
                    {{"member", {mapped(O)}}, {"factor", {tile->columns}}, {"band", {0}}}}) &&
           tryStep({"interchange", {st.name}, {{"order", order}}}) &&
           tryStep({"unroll", {st.name},
                    {{"member", {static_cast<int>(order.size()) - 2}},
                     {"factor", {tile->rows}},
                     {"band", {0}}}});
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

std::optional<RegisterTile> defaultRegisterTile(const ir::Statement &st) {
  std::optional<size_t> jam = defaultJamDimension(st);
  if (!jam || !st.constraints.empty())
    return std::nullopt;
  const size_t width = static_cast<size_t>(defaultLoopOrder(st).back());
  if (*jam > width || !unitStride(st, width))
    return std::nullopt;
  const int64_t rows = st.extents[*jam] % kTileRows == 0 ? kTileRows : 0;
  auto columns = std::find_if(kTileWidths.begin(), kTileWidths.end(),
                              [&](int w) { return st.extents[width] % w == 0; });
  if (rows == 0 || columns == kTileWidths.end())
    return std::nullopt;
  return RegisterTile{*jam, width, static_cast<int>(rows), *columns};
}

std::vector<ScheduleStep> defaultLayoutSteps(const ir::Kernel &kernel) {
  std::vector<ScheduleStep> steps;
  for (const ir::Statement &st : kernel.statements)
    if (isZeroPaddedConvolution(kernel, st.name))
      steps.push_back({"pad_input", {st.name}, {}});
  return steps;
}

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
    if (!builder.registerTile(st)) {
      builder.interchangeToDefault(st);
      builder.jam(st);
    }
    builder.parallelizeOutermost(st);
  }
  return builder.trace();
}

} // namespace nasc::compiler
