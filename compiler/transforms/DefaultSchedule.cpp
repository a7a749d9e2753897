#include "compiler/transforms/DefaultSchedule.h"

#include "compiler/transforms/BandLookup.h"
#include "compiler/transforms/BlockChannels.h"
#include "compiler/transforms/KernelEdit.h"
#include "compiler/transforms/PadInput.h"
#include "compiler/transforms/Primitives.h"
#include "compiler/transforms/TransformErrors.h"
#include "polyhedral/Legality.h"
#include "polyhedral/ParallelLoops.h"

#include <algorithm>
#include <functional>
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
  TraceBuilder(const poly::Scop &scop, const poly::Dependences &deps, const std::string &node,
               const codegen::VectorUnit &unit)
      : current_(scop), deps_(deps), unit_(unit) {
    trace_.node = node;
  }

  /// Appends `step` if it applies (any refusal, a typed nasc::Error, means it does not);
  /// returns whether it did.
  bool tryStep(const ScheduleStep &step) {
    try {
      current_.schedule = applyStep(current_, deps_, step);
    } catch (const Error &) {
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

  /// The register tile of a statement over a box (docs/performance.md): split each of the
  /// tile's loops whose count is below its extent, order the loops (outer outputs with the
  /// outer parts, reductions, the tile's loops), unroll all of them but the last (vectorized).
  /// Returns false, adding nothing, when the statement does not qualify.
  bool registerTile(const ir::Statement &st) {
    std::optional<RegisterTile> tile = defaultRegisterTile(st, unit_);
    if (!tile)
      return false;
    // The band's members as (iterator, part): part 1 is the inner loop of a split.
    std::vector<std::pair<size_t, int>> members;
    for (size_t d = 0; d < st.depth(); ++d)
      members.push_back({d, 0});
    auto position = [&](std::pair<size_t, int> m) {
      return static_cast<int>(std::find(members.begin(), members.end(), m) - members.begin());
    };
    std::vector<ScheduleStep> steps;
    std::vector<std::pair<size_t, int>> inner;
    for (const RegisterTile::Loop &loop : tile->loops) {
      const bool split = loop.count < st.extents[loop.dim];
      if (split) {
        const int at = position({loop.dim, 0});
        members.insert(members.begin() + at + 1, {loop.dim, 1});
        steps.push_back({"split", {st.name},
                         {{"member", {at}}, {"factor", {loop.count}}, {"band", {0}}}});
      }
      inner.push_back({loop.dim, split ? 1 : 0});
    }
    std::vector<int> order, reductions;
    for (const auto &m : members)
      if (std::find(inner.begin(), inner.end(), m) == inner.end())
        (isReductionDim(st, m.first) ? reductions : order).push_back(position(m));
    order.insert(order.end(), reductions.begin(), reductions.end());
    for (const auto &m : inner)
      order.push_back(position(m));
    steps.push_back({"interchange", {st.name}, {{"order", order}}});
    for (size_t i = 0; i + 1 < tile->loops.size(); ++i)
      steps.push_back({"unroll", {st.name},
                       {{"member", {static_cast<int>(order.size() - tile->loops.size() + i)}},
                        {"factor", {tile->loops[i].count}},
                        {"band", {0}}}});
    return std::all_of(steps.begin(), steps.end(),
                       [&](const ScheduleStep &step) { return tryStep(step); });
  }

  /// Fuses, at depth kEpilogueFuseDepth, each run of consecutive statements around a reduction
  /// statement that access the tensor it writes (its initialisation, bias, activation,
  /// residual Add, block_channels' copy out), when that is legal: each output row is then
  /// finished while it is in cache.
  void fuseAroundReductions(const ir::Kernel &kernel) {
    const std::vector<ir::Statement> &sts = kernel.statements;
    for (size_t i = 0; i < sts.size(); ++i) {
      if (!hasReductionDims(sts[i]))
        continue;
      const int tensor = sts[i].write.tensor;
      size_t first = i, last = i;
      while (first > 0 && accessesTensor(sts[first - 1], tensor))
        --first;
      while (last + 1 < sts.size() && accessesTensor(sts[last + 1], tensor))
        ++last;
      std::vector<std::string> names;
      for (size_t j = first; j <= last; ++j)
        names.push_back(sts[j].name);
      if (names.size() > 1)
        tryStep({"fuse", names, {{"depth", {kEpilogueFuseDepth}}}});
      i = last;
    }
  }

  /// Parallelizes the outermost parallel loop of `st`'s first band (no band is above it) unless
  /// a reduction loop of more than one iteration encloses it: a parallel loop inside a
  /// reduction loop (a Gemm's output loop under its sum over c) would start a thread team per
  /// step of the sum, slower than one thread.
  void parallelizeOutermost(const ir::Statement &st) {
    if (st.depth() == 0)
      return;
    isl::schedule_node_band band = statementBand(current_, st.name, 0, "parallelize", true);
    int member = poly::outermostParallelMember(current_, deps_, band);
    if (member < 0)
      return;
    for (int m = 0; m < member; ++m)
      if (!poly::isDegenerate(band, m) && isReductionLoop(band, m))
        return;
    tryStep({"parallelize", {st.name}, {{"member", {member}}, {"band", {0}}}});
  }

  /// Whether band member `m` separates instances of a reduction and nothing else.
  bool isReductionLoop(const isl::schedule_node_band &band, int m) const {
    poly::Dependences othersOnly = deps_;
    othersOnly.reductions = othersOnly.groups = isl::union_map::empty(band.ctx());
    return !poly::carriedAtMember(deps_, band, m).is_empty() &&
           poly::carriedAtMember(othersOnly, band, m).is_empty();
  }

  KernelSchedule trace() const { return trace_; }
  const isl::schedule &schedule() const { return current_.schedule; }

private:
  poly::Scop current_;
  const poly::Dependences &deps_;
  codegen::VectorUnit unit_;
  KernelSchedule trace_;
};

} // namespace

namespace {

/// The last non-reduction dimension before `width` with more than one iteration for which
/// `wanted(d)`.
std::optional<size_t> lastOutputDim(const ir::Statement &st, size_t width,
                                    const std::function<bool(size_t)> &wanted) {
  std::optional<size_t> found;
  for (size_t d = 0; d < width; ++d)
    if (!isReductionDim(st, d) && st.extents[d] > 1 && wanted(d))
      found = d;
  return found;
}

/// The largest divisor of `extent` that is at most `most` (at least 1).
int64_t largestDivisor(int64_t extent, int64_t most) {
  int64_t r = std::max<int64_t>(1, std::min(most, extent));
  while (r > 1 && extent % r != 0)
    --r;
  return r;
}

/// The tile of a statement whose innermost output dimension `width` is one vector (the k1 of
/// a block_channels conv), as defaultRegisterTile describes.
std::optional<RegisterTile> vectorTile(const ir::Statement &st, size_t width,
                                       const codegen::VectorUnit &unit) {
  std::vector<const ir::Access *> loads;
  collectLoads(st.value, loads);
  auto anyLoad = [&](const std::function<bool(const ir::Access &)> &f) {
    return std::any_of(loads.begin(), loads.end(), [&](const ir::Access *a) { return f(*a); });
  };
  auto along = [&](const ir::Access &a) { return usesIterator(a, width); };
  std::optional<size_t> J = lastOutputDim(st, width, [&](size_t d) {
    return anyLoad([&](const ir::Access &a) { return along(a) && !usesIterator(a, d); });
  });
  if (!J)
    return std::nullopt;
  auto broadcast = [&](const ir::Access &a) { return !along(a); };
  std::optional<size_t> K = lastOutputDim(st, width, [&](size_t d) {
    auto alongUsing = [&](const ir::Access &a) { return along(a) && usesIterator(a, d); };
    auto broadcastUsing = [&](const ir::Access &a) { return broadcast(a) && usesIterator(a, d); };
    return d != *J && anyLoad(alongUsing) && anyLoad(broadcast) && !anyLoad(broadcastUsing);
  });
  auto columns = [&](int64_t jam) {
    const int64_t accumulators =
        std::min<int64_t>(kMaxTileAccumulators, unit.registers - jam - 1);
    return largestDivisor(st.extents[*J], accumulators / jam);
  };
  int64_t bestJam = 1, bestRows = columns(1);
  if (K && st.extents[*K] % 2 == 0) {
    const int64_t rows = columns(2);
    if (2 * rows >= std::min<int64_t>(bestRows, kMinTileAccumulators)) {
      bestJam = 2;
      bestRows = rows;
    }
  }
  RegisterTile tile;
  if (bestJam > 1)
    tile.loops.push_back({*K, static_cast<int>(bestJam)});
  tile.loops.push_back({*J, static_cast<int>(bestRows)});
  tile.loops.push_back({width, static_cast<int>(st.extents[width])});
  return tile;
}

/// The block_channels block of statement `name` of program.calls[call]: the first of the
/// vector's lanes, halved while at least kMinChannelBlock, that block_channels accepts (it
/// divides the output channels per group, or a depthwise conv's channels); 0 if none.
int channelBlock(const ir::Program &program, size_t call, const std::string &name,
                 const codegen::VectorUnit &unit) {
  for (int block = unit.lanes; block >= kMinChannelBlock; block /= 2)
    if (blockChannelsRefusal(program, call, name, block).empty())
      return block;
  return 0;
}

} // namespace

std::optional<RegisterTile> defaultRegisterTile(const ir::Statement &st,
                                                const codegen::VectorUnit &unit) {
  if (!st.constraints.empty() || defaultLoopOrder(st) == identityOrder(st.depth()))
    return std::nullopt;
  const size_t width = static_cast<size_t>(defaultLoopOrder(st).back());
  if (!unitStride(st, width))
    return std::nullopt;
  if (st.extents[width] >= kMinChannelBlock && unit.lanes % st.extents[width] == 0)
    return vectorTile(st, width, unit);
  std::optional<size_t> jam = defaultJamDimension(st);
  if (!jam || *jam > width)
    return std::nullopt;
  const int64_t rows = st.extents[*jam] % kTileRows == 0 ? kTileRows : 0;
  auto columns = std::find_if(kTileWidths.begin(), kTileWidths.end(),
                              [&](int w) { return st.extents[width] % w == 0; });
  if (rows == 0 || columns == kTileWidths.end())
    return std::nullopt;
  RegisterTile tile;
  tile.loops = {{*jam, static_cast<int>(rows)}, {width, *columns}};
  return tile;
}

std::vector<ScheduleStep> applyDefaultLayout(ir::Program &program, size_t call,
                                             const codegen::VectorUnit &unit) {
  std::vector<ScheduleStep> steps;
  std::vector<std::string> names;
  for (const ir::Statement &st : program.calls.at(call).kernel.statements)
    names.push_back(st.name);
  for (const std::string &name : names)
    if (isZeroPaddedConvolution(program.calls[call].kernel, name)) {
      padInput(program, call, name);
      steps.push_back({"pad_input", {name}, {}});
    }
  for (const std::string &name : names) {
    const int block = channelBlock(program, call, name, unit);
    if (block == 0)
      continue;
    const int inputBlock = static_cast<int>(blockChannels(program, call, name, block));
    steps.push_back({"block_channels", {name}, {{"block", {block}}, {"input_block", {inputBlock}}}});
  }
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
                            const ir::Kernel &kernel, const std::string &node,
                            const codegen::VectorUnit &unit) {
  return defaultSchedule(scop, deps, kernel, node, unit).trace;
}

ScheduledTrace defaultSchedule(const poly::Scop &scop, const poly::Dependences &deps,
                               const ir::Kernel &kernel, const std::string &node,
                               const codegen::VectorUnit &unit) {
  TraceBuilder builder(scop, deps, node, unit);
  for (const ir::Statement &st : kernel.statements)
    if (!builder.registerTile(st)) {
      builder.interchangeToDefault(st);
      builder.jam(st);
    }
  builder.fuseAroundReductions(kernel);
  for (const ir::Statement &st : kernel.statements)
    builder.parallelizeOutermost(st);
  return {builder.trace(), builder.schedule()};
}

} // namespace nasc::compiler
