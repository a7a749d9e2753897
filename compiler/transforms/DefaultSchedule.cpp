#include "compiler/transforms/DefaultSchedule.h"

#include "compiler/transforms/BandLookup.h"
#include "compiler/transforms/BlockChannels.h"
#include "compiler/transforms/ConvStatement.h"
#include "compiler/transforms/ForwardBlocked.h"
#include "compiler/transforms/KernelEdit.h"
#include "compiler/transforms/PadInput.h"
#include "compiler/transforms/Primitives.h"
#include "compiler/transforms/SubsampleInput.h"
#include "compiler/transforms/TransformErrors.h"
#include "ir/Tensor.h"
#include "polyhedral/Legality.h"
#include "polyhedral/ParallelLoops.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <numeric>
#include <optional>

namespace nasc::compiler {

namespace {

bool usesIterator(const ir::Access &access, size_t d) {
  return std::any_of(access.index.begin(), access.index.end(), [d](const ir::AffineExpr &e) {
    return d < e.coeffs.size() && e.coeffs[d] != 0;
  });
}

/// Whether every load that uses iterator `d` moves by 1 element per iteration of it (it is the
/// last index, with coefficient 1): a vector over `d` then reads contiguous elements.
bool unitStride(const ir::Statement &st, size_t d) {
  const std::vector<const ir::Access *> loads = ir::loadsOf(st.value);
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

/// A band member of a statement while the trace splits its loops: iterator `dim`, and `part`
/// p + 1 the inner loop of a split of part p (part 0 is the unsplit loop or a split's outer one).
struct Member {
  size_t dim = 0;
  int part = 0;
  bool operator==(const Member &o) const { return dim == o.dim && part == o.part; }
};

/// The members of a statement's first band, in order, as split and interchange steps change
/// them; it makes those steps.
class BandMembers {
public:
  explicit BandMembers(const ir::Statement &st) : name_(st.name) {
    for (size_t d = 0; d < st.depth(); ++d) {
      members_.push_back({d, 0});
      counts_.push_back({st.extents[d]});
    }
  }

  const std::vector<Member> &members() const { return members_; }
  /// The innermost part of iterator `dim`.
  Member innermost(size_t dim) const { return {dim, static_cast<int>(counts_[dim].size()) - 1}; }
  /// Iterations of the innermost part of `dim`.
  int64_t innermostCount(size_t dim) const { return counts_[dim].back(); }
  /// The factors `dim`'s parts were split by, in order.
  std::vector<int64_t> splitFactors(size_t dim) const {
    return {counts_[dim].begin() + 1, counts_[dim].end()};
  }

  /// The step splitting the innermost part of `dim` into loops of `factor` iterations inside.
  ScheduleStep split(size_t dim, int64_t factor) {
    const Member m = innermost(dim);
    const int at = position(m);
    members_.insert(members_.begin() + at + 1, {dim, m.part + 1});
    counts_[dim].push_back(factor);
    return {"split",
            {name_},
            {{"member", {at}}, {"factor", {static_cast<int>(factor)}}, {"band", {0}}}};
  }

  /// The step ordering the members as `order` (a permutation of members()), or nullopt when
  /// that is the current order.
  std::optional<ScheduleStep> interchange(const std::vector<Member> &order) {
    if (order == members_)
      return std::nullopt;
    std::vector<int> positions;
    for (const Member &m : order)
      positions.push_back(position(m));
    members_ = order;
    return ScheduleStep{"interchange", {name_}, {{"order", positions}}};
  }

  int position(Member m) const {
    return static_cast<int>(std::find(members_.begin(), members_.end(), m) - members_.begin());
  }

private:
  std::string name_;
  std::vector<Member> members_;
  std::vector<std::vector<int64_t>> counts_;
};

/// The iterator that index `e` of statement `st` takes the values of, up to e's constant: e is
/// one iterator (coefficient 1) plus a constant, or a sum of such iterators all but one of which
/// have one iteration (g + k' of a depthwise conv's output channel); nullopt otherwise.
std::optional<size_t> indexIterator(const ir::Statement &st, const ir::AffineExpr &e) {
  std::vector<size_t> used, varying;
  for (size_t d = 0; d < e.coeffs.size(); ++d)
    if (e.coeffs[d] != 0) {
      if (e.coeffs[d] != 1)
        return std::nullopt;
      used.push_back(d);
      if (st.extents[d] > 1)
        varying.push_back(d);
    }
  if (used.empty())
    return std::nullopt;
  if (used.size() == 1)
    return used[0];
  return varying.size() == 1 ? std::optional<size_t>(varying[0]) : std::nullopt;
}

/// Where an iterator's values land in a tensor: the index position and the constant added
/// (oh + 1 of a conv writing the inside of its consumer's padded tensor: {2, 1}).
struct TensorIndex {
  size_t position = 0;
  int64_t offset = 0;
  bool operator==(const TensorIndex &) const = default;
};

/// For each iterator of `st` that an index of `access` takes the values of (indexIterator),
/// that index's position in the tensor and its constant.
std::vector<std::optional<TensorIndex>> tensorIndexOfIterators(const ir::Statement &st,
                                                               const ir::Access &access) {
  std::vector<std::optional<TensorIndex>> position(st.depth());
  for (size_t i = 0; i < access.index.size(); ++i)
    if (std::optional<size_t> it = indexIterator(st, access.index[i]))
      position[*it] = TensorIndex{i, access.index[i].constant};
  return position;
}

/// Where an iterator's values land in a tensor in blocks: the index at `index.position` is
/// `factor` · it + inner + `index.offset`, inner an iterator of `factor` iterations with
/// coefficient 1 (g of a grouped conv's output channel Kg·g + k': factor Kg).
struct BlockIndex {
  TensorIndex index;
  int64_t factor = 0;
};

/// The BlockIndex of iterator `dim` of `st` in `access`, if one of its indices is one.
std::optional<BlockIndex> blockIndexOf(const ir::Statement &st, const ir::Access &access,
                                       size_t dim) {
  for (size_t i = 0; i < access.index.size(); ++i) {
    const ir::AffineExpr &e = access.index[i];
    const int64_t factor = e.coeffs[dim];
    if (factor <= 1)
      continue;
    std::vector<size_t> inner;
    for (size_t d = 0; d < e.coeffs.size(); ++d)
      if (d != dim && e.coeffs[d] != 0)
        inner.push_back(d);
    if (inner.size() == 1 && e.coeffs[inner[0]] == 1 && st.extents[inner[0]] == factor)
      return BlockIndex{{i, e.constant}, factor};
  }
  return std::nullopt;
}

/// The access of `st` to kernel tensor `tensor`: its write if it writes it, else its first
/// load of it.
const ir::Access &accessTo(const ir::Statement &st, int tensor) {
  if (st.write.tensor == tensor)
    return st.write;
  const std::vector<const ir::Access *> loads = ir::loadsOf(st.value);
  return **std::find_if(loads.begin(), loads.end(),
                        [&](const ir::Access *a) { return a->tensor == tensor; });
}

/// Iterations of the loop of tile.loops[i] (split by the next loop when that is of the same
/// iterator).
int memberCount(const RegisterTile &tile, size_t i) {
  const bool split = i + 1 < tile.loops.size() && tile.loops[i + 1].dim == tile.loops[i].dim;
  return tile.loops[i].count / (split ? tile.loops[i + 1].count : 1);
}

/// Builds a trace step by step, applying each step to keep the current schedule.
class TraceBuilder {
public:
  TraceBuilder(const poly::Scop &scop, const poly::Dependences &deps, const std::string &node,
               const codegen::VectorUnit &unit, const TraceChoices &choices)
      : current_(scop), deps_(deps), unit_(unit), choices_(choices) {
    trace_.node = node;
  }

  /// Appends `step` if it applies; a refusal (a ScheduleRefusal) is recorded in the trace's
  /// `refused` steps, any other error (a malformed step) is thrown. Returns whether it applied.
  bool tryStep(const ScheduleStep &step) {
    try {
      current_.schedule = applyStep(current_, deps_, step);
    } catch (const ScheduleRefusal &e) {
      trace_.refused.push_back({step, e.what()});
      return false;
    }
    trace_.steps.push_back(step);
    return true;
  }

  /// Appends all of `steps` if each applies after the ones before it; otherwise none of them
  /// (the refused one is recorded, as tryStep does).
  bool tryAll(const std::vector<ScheduleStep> &steps) {
    const isl::schedule before = current_.schedule;
    const size_t applied = trace_.steps.size();
    for (const ScheduleStep &step : steps)
      if (!tryStep(step)) {
        current_.schedule = before;
        trace_.steps.resize(applied);
        return false;
      }
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
    std::vector<int> moved(order.size() + 1);
    std::iota(moved.begin(), moved.end(), 0);
    moved.erase(moved.begin() + position + 1);
    moved.push_back(position + 1);
    tryAll({{"split", {st.name}, {{"member", {position}}, {"factor", {factor}}, {"band", {0}}}},
            {"interchange", {st.name}, {{"order", moved}}},
            {"unroll",
             {st.name},
             {{"member", {static_cast<int>(moved.size()) - 1}},
              {"factor", {factor}},
              {"band", {0}}}}});
  }

  /// The register tile of a statement over a box (docs/performance.md): split each of the
  /// tile's loops whose count is below the iterations left of its iterator, order the loops
  /// (outer outputs with the outer parts, reductions, the tile's loops), unroll all of them but
  /// the last (vectorized). Returns false, adding nothing, when the statement does not qualify.
  bool registerTile(const ir::Statement &st) {
    std::optional<RegisterTile> tile = defaultRegisterTile(st, unit_, choices_);
    if (!tile)
      return false;
    BandMembers band(st);
    std::vector<ScheduleStep> steps;
    std::vector<Member> inner;
    for (const RegisterTile::Loop &loop : tile->loops) {
      if (loop.count < band.innermostCount(loop.dim))
        steps.push_back(band.split(loop.dim, loop.count));
      inner.push_back(band.innermost(loop.dim));
    }
    if (tile->reductionChunk)
      steps.push_back(band.split(tile->reductionChunk->dim, tile->reductionChunk->count));
    std::vector<Member> order, reductions;
    for (const Member &m : band.members())
      if (std::find(inner.begin(), inner.end(), m) == inner.end())
        (st.reducesOver(m.dim) ? reductions : order).push_back(m);
    if (tile->rowsOutside)
      moveRowsAfterOuterOutputs(order, tile->channels, tile->columns);
    if (tile->reductionChunk)
      moveChunksAfterChannels(order, reductions, tile->reductionChunk->dim, tile->channels);
    order.insert(order.end(), reductions.begin(), reductions.end());
    order.insert(order.end(), inner.begin(), inner.end());
    if (std::optional<ScheduleStep> step = band.interchange(order))
      steps.push_back(*step);
    for (size_t i = 0; i + 1 < tile->loops.size(); ++i)
      steps.push_back({"unroll",
                       {st.name},
                       {{"member", {static_cast<int>(order.size() - tile->loops.size() + i)}},
                        {"factor", {memberCount(*tile, i)}},
                        {"band", {0}}}});
    if (!tryAll(steps))
      return false;
    tiled_.emplace(st.name, band);
    return true;
  }

  /// Moves the outer part of iterator `rows` (in `order`, the outer output members) to just
  /// before the outer part of `columns`: RegisterTile::rowsOutside.
  static void moveRowsAfterOuterOutputs(std::vector<Member> &order, size_t rows, size_t columns) {
    auto isRows = [&](const Member &m) { return m.dim == rows; };
    auto at = std::find_if(order.begin(), order.end(), isRows);
    if (at == order.end())
      return;
    const Member moved = *at;
    order.erase(at);
    auto before =
        std::find_if(order.begin(), order.end(), [&](const Member &m) { return m.dim == columns; });
    order.insert(before, moved);
  }

  /// Moves the outer part of the chunked reduction iterator `chunked` from `reductions` to just
  /// after the outer part of iterator `channels` in `order` (the outer output members):
  /// RegisterTile::reductionChunk.
  static void moveChunksAfterChannels(std::vector<Member> &order, std::vector<Member> &reductions,
                                      size_t chunked, size_t channels) {
    const Member chunks{chunked, 0};
    reductions.erase(std::find(reductions.begin(), reductions.end(), chunks));
    auto at = std::find(order.begin(), order.end(), Member{channels, 0});
    order.insert(at == order.end() ? at : at + 1, chunks);
  }

  /// The steps giving statement `neighbour` the first `depth` loops of the register-tiled
  /// statement `reduction` (each an iterator split as the reduction's is, matched through the
  /// index of `tensor` both access, plus the same constant; an unsplit iterator of the
  /// reduction that indexes the tensor in blocks (BlockIndex: a grouped conv's g) matches the
  /// outer part of the neighbour's iterator split by the block), so the two can be fused at
  /// `depth`; nullopt when an iterator of those loops indexes the tensor otherwise.
  std::optional<std::vector<ScheduleStep>> alignTo(const ir::Statement &neighbour,
                                                   const ir::Statement &reduction,
                                                   const BandMembers &tiled, int tensor,
                                                   int depth) const {
    const std::vector<std::optional<TensorIndex>> reductionIndex =
        tensorIndexOfIterators(reduction, accessTo(reduction, tensor));
    const std::vector<std::optional<TensorIndex>> neighbourIndex =
        tensorIndexOfIterators(neighbour, accessTo(neighbour, tensor));
    auto neighbourDim = [&](size_t dim) -> std::optional<size_t> {
      if (!reductionIndex[dim])
        return std::nullopt;
      auto it = std::find(neighbourIndex.begin(), neighbourIndex.end(), reductionIndex[dim]);
      if (it == neighbourIndex.end())
        return std::nullopt;
      return static_cast<size_t>(it - neighbourIndex.begin());
    };
    BandMembers band(neighbour);
    std::vector<ScheduleStep> steps;
    std::vector<Member> order;
    for (int i = 0; i < depth; ++i) {
      const Member m = tiled.members()[static_cast<size_t>(i)];
      if (!reductionIndex[m.dim]) {
        std::optional<Member> outer =
            blockAligned(neighbour, neighbourIndex, reduction, tiled, tensor, m, band, steps);
        if (!outer)
          return std::nullopt;
        order.push_back(*outer);
        continue;
      }
      std::optional<size_t> dim = neighbourDim(m.dim);
      if (!dim || neighbour.extents[*dim] != reduction.extents[m.dim])
        return std::nullopt;
      if (band.splitFactors(*dim).empty())
        for (int64_t factor : tiled.splitFactors(m.dim))
          steps.push_back(band.split(*dim, factor));
      order.push_back({*dim, m.part});
    }
    for (const Member &m : band.members())
      if (std::find(order.begin(), order.end(), m) == order.end())
        order.push_back(m);
    if (std::optional<ScheduleStep> step = band.interchange(order))
      steps.push_back(*step);
    return steps;
  }

  /// For member `m` of the reduction's band `tiled`, an unsplit iterator that indexes `tensor`
  /// in blocks (BlockIndex), the outer part of the neighbour's iterator at that index (same
  /// constant, `factor` times the iterations), after adding its split by the factor to `steps`
  /// (on `band`, the neighbour's members); nullopt when there is none.
  std::optional<Member> blockAligned(const ir::Statement &neighbour,
                                     const std::vector<std::optional<TensorIndex>> &neighbourIndex,
                                     const ir::Statement &reduction, const BandMembers &tiled,
                                     int tensor, Member m, BandMembers &band,
                                     std::vector<ScheduleStep> &steps) const {
    std::optional<BlockIndex> block = blockIndexOf(reduction, accessTo(reduction, tensor), m.dim);
    if (!block || m.part != 0 || !tiled.splitFactors(m.dim).empty())
      return std::nullopt;
    auto it = std::find(neighbourIndex.begin(), neighbourIndex.end(), block->index);
    if (it == neighbourIndex.end())
      return std::nullopt;
    const auto dim = static_cast<size_t>(it - neighbourIndex.begin());
    if (neighbour.extents[dim] != reduction.extents[m.dim] * block->factor ||
        !band.splitFactors(dim).empty())
      return std::nullopt;
    steps.push_back(band.split(dim, block->factor));
    return Member{dim, 0};
  }

  /// Fuses each run of consecutive statements around a reduction statement that access the
  /// tensor it writes (its initialisation, bias, activation, residual Add, block_channels' copy
  /// out), when that is legal: each output row is then finished while it is in cache. Around a
  /// register-tiled statement the others first get its outer loops (alignTo) and the fusion is
  /// at its outer output loops, at most kEpilogueFuseDepth; otherwise at kEpilogueFuseDepth.
  void fuseAroundReductions(const ir::Kernel &kernel) {
    const std::vector<ir::Statement> &sts = kernel.statements;
    for (size_t i = 0; i < sts.size(); ++i) {
      if (!sts[i].hasReduction())
        continue;
      const int tensor = sts[i].write.tensor;
      size_t first = i, last = i;
      while (first > 0 && accessesTensor(sts[first - 1], tensor))
        --first;
      while (last + 1 < sts.size() && accessesTensor(sts[last + 1], tensor))
        ++last;
      if (last > first)
        fuseRun(sts, first, last, i);
      i = last;
    }
  }

  /// Fuses statements first..last of `sts` around the reduction statement sts[reduction]:
  /// around a register-tiled one at the deepest depth from min(kEpilogueFuseDepth, its outer
  /// output loops) down to 2 at which the others align to it (a depthwise conv's k' loop of one
  /// iteration matches none of its bias loops: fused per channel plane, depth 2).
  /// The statements the reduction reads from (pad_input's) fuse among themselves
  /// (fuseProducers) when they do not join it.
  void fuseRun(const std::vector<ir::Statement> &sts, size_t first, size_t last, size_t reduction) {
    const size_t producers = producersBefore(sts, first, reduction);
    auto tiled = tiled_.find(sts[reduction].name);
    if (tiled == tiled_.end()) {
      tryStep({"fuse", names(sts, first, last), {{"depth", {kEpilogueFuseDepth}}}});
      return fuseProducers(sts, producers, first);
    }
    const int outer = std::min(kEpilogueFuseDepth, outerOutputLoops(sts[reduction], tiled->second));
    std::vector<size_t> starts{producers};
    if (starts[0] != first)
      starts.push_back(first);
    for (size_t from : starts)
      for (int depth = outer; depth >= 2; --depth) {
        std::optional<std::vector<ScheduleStep>> steps =
            alignedFusion(sts, from, last, reduction, tiled->second, depth);
        if (steps && tryAll(*steps))
          return from == producers ? void() : fuseProducers(sts, producers, first);
      }
    fuseProducers(sts, producers, first);
  }

  /// Fuses statements begin..end - 1 of `sts` (pad_input's halo fills and copy, which write
  /// disjoint parts of one buffer) at kProducerFuseDepth, if there are two or more and those
  /// loops have more than one iteration: one loop nest, and one parallel loop, for all of them
  /// (an RGB stem's single channel block keeps a parallel loop per statement, over its rows).
  void fuseProducers(const std::vector<ir::Statement> &sts, size_t begin, size_t end) {
    if (end < begin + 2 || sts[begin].depth() < kProducerFuseDepth)
      return;
    const std::vector<int64_t> &extents = sts[begin].extents;
    if (std::reduce(extents.begin(), extents.begin() + kProducerFuseDepth, int64_t{1},
                    std::multiplies<>()) > 1)
      tryStep({"fuse", names(sts, begin, end - 1), {{"depth", {kProducerFuseDepth}}}});
  }

  /// The names of statements first..last of `sts`.
  static std::vector<std::string> names(const std::vector<ir::Statement> &sts, size_t first,
                                        size_t last) {
    std::vector<std::string> out;
    for (size_t j = first; j <= last; ++j)
      out.push_back(sts[j].name);
    return out;
  }

  /// The first of the consecutive statements before sts[first] that write a tensor
  /// sts[reduction] loads (pad_input's fill and copy of a conv's input), or `first`.
  static size_t producersBefore(const std::vector<ir::Statement> &sts, size_t first,
                                size_t reduction) {
    const std::vector<const ir::Access *> loads = ir::loadsOf(sts[reduction].value);
    auto loaded = [&](int tensor) {
      return std::any_of(loads.begin(), loads.end(),
                         [&](const ir::Access *a) { return a->tensor == tensor; });
    };
    while (first > 0 && loaded(sts[first - 1].write.tensor))
      --first;
    return first;
  }

  /// The steps aligning statements first..last of `sts` but sts[reduction] to its band
  /// `tiled` (alignTo, through the tensor the reduction writes, or else the one the statement
  /// writes) and fusing them all at `depth`; nullopt if one does not align.
  std::optional<std::vector<ScheduleStep>> alignedFusion(const std::vector<ir::Statement> &sts,
                                                         size_t first, size_t last,
                                                         size_t reduction, const BandMembers &tiled,
                                                         int depth) const {
    std::vector<ScheduleStep> steps;
    std::vector<std::string> names;
    for (size_t j = first; j <= last; ++j) {
      names.push_back(sts[j].name);
      if (j == reduction)
        continue;
      const int output = sts[reduction].write.tensor;
      std::optional<std::vector<ScheduleStep>> align =
          alignTo(sts[j], sts[reduction], tiled,
                  accessesTensor(sts[j], output) ? output : sts[j].write.tensor, depth);
      if (!align)
        return std::nullopt;
      steps.insert(steps.end(), align->begin(), align->end());
    }
    steps.push_back({"fuse", names, {{"depth", {depth}}}});
    return steps;
  }

  /// The leading members of `band` (of statement `st`) before its first reduction loop.
  static int outerOutputLoops(const ir::Statement &st, const BandMembers &band) {
    int n = 0;
    while (n < static_cast<int>(band.members().size()) &&
           !st.reducesOver(band.members()[static_cast<size_t>(n)].dim))
      ++n;
    return n;
  }

  /// Parallelizes the outermost parallel loop of `st`'s first band (no band is above it) unless
  /// a reduction loop of more than one iteration encloses it, or the statements of `kernel`
  /// under the band have fewer than kMinParallelInstances instances. A parallel loop inside a
  /// reduction loop (a Gemm's output loop under its sum over c) would start a thread team per
  /// step of the sum, slower than one thread.
  void parallelizeOutermost(const ir::Statement &st, const ir::Kernel &kernel) {
    if (st.depth() == 0)
      return;
    isl::schedule_node_band band = statementBand(current_, st.name, 0, "parallelize", true);
    if (instancesUnder(band, kernel) < kMinParallelInstances)
      return;
    int member = poly::outermostParallelMember(current_, deps_, band);
    if (member < 0)
      return;
    for (int m = 0; m < member; ++m)
      if (!poly::isDegenerate(band, m) && isReductionLoop(band, m))
        return;
    tryStep({"parallelize", {st.name}, {{"member", {member}}, {"band", {0}}}});
  }

  /// The instances of the statements of `kernel` that `band` schedules, each counted over its
  /// box of extents.
  static int64_t instancesUnder(const isl::schedule_node_band &band, const ir::Kernel &kernel) {
    const std::vector<std::string> names = statementsUnder(band);
    int64_t total = 0;
    for (const ir::Statement &st : kernel.statements)
      if (std::find(names.begin(), names.end(), st.name) != names.end())
        total += ir::numElements(st.extents);
    return total;
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
  TraceChoices choices_;
  KernelSchedule trace_;
  std::map<std::string, BandMembers> tiled_; ///< Register-tiled statements' bands, by name.
};

} // namespace

namespace {

/// The last non-reduction dimension before `width` with more than one iteration for which
/// `wanted(d)`.
std::optional<size_t> lastOutputDim(const ir::Statement &st, size_t width,
                                    const std::function<bool(size_t)> &wanted) {
  std::optional<size_t> found;
  for (size_t d = 0; d < width; ++d)
    if (!st.reducesOver(d) && st.extents[d] > 1 && wanted(d))
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

/// Elements of the box that `access` touches over the domain of `st`: per index, the span of
/// its affine expression over the iterators' extents.
double footprint(const ir::Statement &st, const ir::Access &access) {
  double elements = 1;
  for (const ir::AffineExpr &e : access.index) {
    int64_t span = 1;
    for (size_t d = 0; d < e.coeffs.size(); ++d)
      span += std::abs(e.coeffs[d]) * (st.extents[d] - 1);
    elements *= static_cast<double>(span);
  }
  return elements;
}

/// Bytes of `elements` float32 values.
double bytes(double elements) { return elements * static_cast<double>(sizeof(float)); }

/// Bytes an operand of `footprint` bytes streamed `times` moves beyond the cache: none when
/// the working set of one pass, `working` bytes, fits in kStreamCacheBytes, else every pass
/// after the first.
double streamedBeyondCache(double footprint, double times, double working) {
  return working <= kStreamCacheBytes ? 0 : footprint * (times - 1);
}

/// Bytes of the weights of a one-vector tile with output-channel iterator K and vector
/// dimension `width`: the largest footprint of the loads along `width` that use K.
double weightBytes(const ir::Statement &st, const std::vector<const ir::Access *> &loads, size_t K,
                   size_t width) {
  double weights = 0;
  for (const ir::Access *a : loads)
    if (usesIterator(*a, width) && usesIterator(*a, K))
      weights = std::max(weights, bytes(footprint(st, *a)));
  return weights;
}

/// The rowsOutside a one-vector tile with output-channel iterator K in rows of `jam`, columns
/// J and vector dimension `width` gets without a choice: whether the weights (the loads along
/// `width` that use K) streamed once per iteration of the outer output loops they do not use
/// (the rows) move fewer bytes beyond the cache than the input (the loads not along `width`)
/// streamed once per outer iteration of K, with the weights of that iteration beside it
/// (defaultRegisterTile).
bool rowsOutsideByTraffic(const ir::Statement &st, const std::vector<const ir::Access *> &loads,
                          size_t K, int64_t jam, size_t J, size_t width) {
  double input = 0;
  for (const ir::Access *a : loads)
    if (!usesIterator(*a, width))
      input = std::max(input, bytes(footprint(st, *a)));
  const double weights = weightBytes(st, loads, K, width);
  double rows = 1;
  for (size_t d = 0; d < width; ++d)
    if (!st.reducesOver(d) && d != K && d != J &&
        std::none_of(loads.begin(), loads.end(), [&](const ir::Access *a) {
          return usesIterator(*a, width) && usesIterator(*a, K) && usesIterator(*a, d);
        }))
      rows *= static_cast<double>(st.extents[d]);
  const double blocks = static_cast<double>(st.extents[K] / jam);
  return streamedBeyondCache(weights, rows, weights) <
         streamedBeyondCache(input, blocks, input + weights / blocks);
}

/// Whether a broadcast load of `st` (one not along `width`) reads a window: one of its indices
/// adds a reduction iterator of more than one iteration to an output iterator (oh + r of a 3x3
/// conv; a 1x1 conv's r has one iteration).
bool windowed(const ir::Statement &st, const std::vector<const ir::Access *> &loads, size_t width) {
  auto windowIndex = [&](const ir::AffineExpr &e) {
    bool output = false, window = false;
    for (size_t d = 0; d < e.coeffs.size(); ++d) {
      if (e.coeffs[d] == 0)
        continue;
      if (!st.reducesOver(d))
        output = true;
      else if (st.extents[d] > 1)
        window = true;
    }
    return output && window;
  };
  return std::any_of(loads.begin(), loads.end(), [&](const ir::Access *a) {
    return !usesIterator(*a, width) && std::any_of(a->index.begin(), a->index.end(), windowIndex);
  });
}

/// Whether the reductionChunk rule applies to a one-vector tile of `st` whose weights of one
/// iteration of K's outer loop are `perIteration` bytes (defaultRegisterTile): a windowed
/// statement (a 3x3 conv) when they exceed kStreamCacheBytes, so that every output row streams
/// them again from beyond the L2; a windowless one (a 1x1 conv) with at least kMinChunkColumns
/// columns when they exceed kL1WeightBytes.
bool chunksReduction(const ir::Statement &st, bool window, double perIteration, size_t J) {
  if (window)
    return perIteration > kStreamCacheBytes;
  return st.extents[J] >= kMinChunkColumns && perIteration > kL1WeightBytes;
}

/// The reductionChunk of a one-vector tile with output-channel iterator K in rows of `jam`,
/// output columns J and vector dimension `width` (defaultRegisterTile): when chunksReduction,
/// its first reduction iterator that the weights and a broadcast load use, in chunks of the
/// largest divisor of its extent up to kWindowReductionChunk (windowed) or kReductionChunk;
/// nullopt otherwise or when that divisor is the whole extent.
std::optional<RegisterTile::Loop> reductionChunk(const ir::Statement &st,
                                                 const std::vector<const ir::Access *> &loads,
                                                 size_t K, int64_t jam, size_t J, size_t width) {
  const double perIteration = weightBytes(st, loads, K, width) * static_cast<double>(jam) /
                              static_cast<double>(st.extents[K]);
  const bool window = windowed(st, loads, width);
  if (!chunksReduction(st, window, perIteration, J))
    return std::nullopt;
  for (size_t d = 0; d < st.depth(); ++d) {
    auto uses = [&](bool along) {
      return std::any_of(loads.begin(), loads.end(), [&](const ir::Access *a) {
        return usesIterator(*a, width) == along && usesIterator(*a, d);
      });
    };
    if (!st.reducesOver(d) || !uses(true) || !uses(false))
      continue;
    const int64_t count =
        largestDivisor(st.extents[d], window ? kWindowReductionChunk : kReductionChunk);
    if (count == st.extents[d])
      return std::nullopt;
    return RegisterTile::Loop{d, static_cast<int>(count)};
  }
  return std::nullopt;
}

/// `choice` (TraceChoices::order) as a rowsOutside, `otherwise` when it is 0.
bool rowsOutsideChoice(int choice, bool otherwise) {
  return choice == 0 ? otherwise : choice == kRowsOutside;
}

/// `most`, or choices.unroll when that is smaller and not 0.
int64_t unrollLimit(int64_t most, const TraceChoices &choices) {
  return choices.unroll > 0 ? std::min<int64_t>(most, choices.unroll) : most;
}

/// Accumulator vectors a register tile may hold beside `loaded` vectors of the streamed
/// operand and one broadcast: at most kMaxTileAccumulators.
int64_t tileAccumulators(const codegen::VectorUnit &unit, int64_t loaded) {
  return std::min<int64_t>(kMaxTileAccumulators, unit.registers - loaded - 1);
}

/// Whether consecutive iterations of `dim` make `access` read overlapping or adjacent rows: in
/// each index using `dim`, its coefficient (a stride) is at most the span of the reduction
/// iterators beside it (a window). A strided 1x1 conv's output rows read rows that are
/// neither: two of them in a tile ran slower (ResNeXt-50's 1x1 1024 -> 2048 of stride 2 at
/// 7x7 on AVX2, 3.5 -> 3.8-4.8 ms in the network, docs/performance.md).
bool rowsAdjacent(const ir::Statement &st, const ir::Access &access, size_t dim) {
  return std::all_of(access.index.begin(), access.index.end(), [&](const ir::AffineExpr &e) {
    int64_t span = 1;
    for (size_t d = 0; d < e.coeffs.size(); ++d)
      if (d != dim && st.reducesOver(d))
        span += std::abs(e.coeffs[d]) * (st.extents[d] - 1);
    return std::abs(e.coeffs[dim]) <= span;
  });
}

/// The output rows of a one-vector tile with `jam` vectors of `columns` whole rows of J (see
/// defaultRegisterTile): nullopt unless jam x columns is at most kMinTileAccumulators, else the
/// last output dimension I before J that the broadcast loads (those not along `width`) use, if
/// they read it rowsAdjacent, with as many iterations as fit the accumulators (at least 2; the last
/// tile of I may be partial, generated apart by poly::isolateFullTiles).
std::optional<RegisterTile::Loop> outputRows(const ir::Statement &st,
                                             const std::vector<const ir::Access *> &loads, size_t J,
                                             size_t width, int64_t jam, int64_t columns,
                                             const codegen::VectorUnit &unit) {
  if (jam * columns > kMinTileAccumulators || columns != st.extents[J])
    return std::nullopt;
  auto broadcastUsing = [&](size_t d, const ir::Access *a) {
    return !usesIterator(*a, width) && usesIterator(*a, d);
  };
  std::optional<size_t> I = lastOutputDim(st, J, [&](size_t d) {
    return std::any_of(loads.begin(), loads.end(),
                       [&](const ir::Access *a) { return broadcastUsing(d, a); });
  });
  if (!I || std::any_of(loads.begin(), loads.end(), [&](const ir::Access *a) {
        return broadcastUsing(*I, a) && !rowsAdjacent(st, *a, *I);
      }))
    return std::nullopt;
  const int64_t accumulators = tileAccumulators(unit, jam);
  const int64_t rows = std::min(st.extents[*I], accumulators / (jam * columns));
  if (rows < 2)
    return std::nullopt;
  return RegisterTile::Loop{*I, static_cast<int>(rows)};
}

/// The tile of a statement whose innermost output dimension `width` is one vector (the k1 of
/// a block_channels conv), as defaultRegisterTile describes.
std::optional<RegisterTile> vectorTile(const ir::Statement &st, size_t width,
                                       const codegen::VectorUnit &unit,
                                       const TraceChoices &choices) {
  const std::vector<const ir::Access *> loads = ir::loadsOf(st.value);
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
    const int64_t accumulators = tileAccumulators(unit, jam);
    return largestDivisor(st.extents[*J], unrollLimit(accumulators / jam, choices));
  };
  int64_t bestJam = 1, bestRows = columns(1);
  if (choices.jam > 0 && (choices.jam == 1 || (K && st.extents[*K] % choices.jam == 0))) {
    bestJam = choices.jam;
    bestRows = columns(bestJam);
  } else if (K && st.extents[*K] % 2 == 0) {
    const int64_t rows = columns(2);
    if (2 * rows >= std::min<int64_t>(bestRows, kMinTileAccumulators)) {
      bestJam = 2;
      bestRows = rows;
    }
  }
  RegisterTile tile;
  if (bestJam > 1)
    tile.loops.push_back({*K, static_cast<int>(bestJam)});
  if (std::optional<RegisterTile::Loop> rows =
          outputRows(st, loads, *J, width, bestJam, bestRows, unit))
    tile.loops.push_back(*rows);
  tile.loops.push_back({*J, static_cast<int>(bestRows)});
  tile.loops.push_back({width, static_cast<int>(st.extents[width])});
  if (K && st.extents[*K] > bestJam) {
    tile.rowsOutside =
        rowsOutsideChoice(choices.order, rowsOutsideByTraffic(st, loads, *K, bestJam, *J, width));
    if (!tile.rowsOutside)
      tile.reductionChunk = reductionChunk(st, loads, *K, bestJam, *J, width);
    tile.channels = *K;
    tile.columns = *J;
  }
  return tile;
}

/// Whether the innermost output dimension `width` of `st` is a multiple of two or more vectors.
bool rowOfVectors(const ir::Statement &st, size_t width, const codegen::VectorUnit &unit) {
  return st.extents[width] % unit.lanes == 0 && st.extents[width] >= 2 * unit.lanes;
}

/// The vectors of a row of `extent` elements, the last one partial if `extent` is not a
/// multiple of the vector.
int64_t rowVectors(int64_t extent, const codegen::VectorUnit &unit) {
  return (extent + unit.lanes - 1) / unit.lanes;
}

/// Whether the innermost output dimension `width` of `st` is more than one vector and at most
/// kMaxPartialRowVectors, its last vector partial with a power of two of at least
/// kMinChannelBlock lanes (LLVM vectorizes such a remainder as one narrower vector; a
/// remainder of 12 lanes, 28 columns on AVX-512, ran a grouped conv 4x slower than blocked).
bool partialRowOfVectors(const ir::Statement &st, size_t width, const codegen::VectorUnit &unit) {
  const int64_t remainder = st.extents[width] % unit.lanes;
  return st.extents[width] > unit.lanes && remainder >= kMinChannelBlock &&
         (remainder & (remainder - 1)) == 0 &&
         rowVectors(st.extents[width], unit) <= kMaxPartialRowVectors;
}

/// The vector registers the accumulators of register tile `tile` of `st` take: per iterator
/// its outermost loop's iterations, the innermost iterator's in vectors of `unit`.
int64_t accumulatorVectors(const RegisterTile &tile, const ir::Statement &st,
                           const codegen::VectorUnit &unit) {
  const size_t width = tile.loops.back().dim;
  int64_t vectors = 1;
  for (size_t i = 0; i < tile.loops.size(); ++i) {
    const RegisterTile::Loop &loop = tile.loops[i];
    if (i > 0 && tile.loops[i - 1].dim == loop.dim)
      continue;
    const int64_t count = std::min<int64_t>(loop.count, st.extents[loop.dim]);
    vectors *= loop.dim == width ? rowVectors(count, unit) : count;
  }
  return vectors;
}

/// Whether `st` is a grouped convolution, not depthwise, whose output channels per group are
/// not a multiple of the vector (block_channels would fill part of each vector only).
bool partialVectorGroups(const ir::Statement &st, const codegen::VectorUnit &unit) {
  ConvStatement conv;
  return matchConvStatement(st, conv).empty() && conv.group &&
         !(conv.inPerGroup == 1 && conv.outPerGroup == 1) && conv.outPerGroup % unit.lanes != 0;
}

/// The vectors of `width` in the rows x vectors tile of a rowOfVectors statement: the largest
/// divisor of the row's vectors up to kMaxRowVectors with rows of `jam`, without them up to
/// the accumulators that fit beside a loaded vector and a broadcast.
int64_t rowTileVectors(const ir::Statement &st, std::optional<size_t> jam, size_t width,
                       const codegen::VectorUnit &unit) {
  return largestDivisor(st.extents[width] / unit.lanes,
                        jam ? kMaxRowVectors
                            : std::min<int64_t>(kMaxTileAccumulators, unit.registers - 2));
}

/// The tile of a rowOfVectors statement, with rows of `jam` if any, as defaultRegisterTile
/// describes.
RegisterTile rowVectorTile(const ir::Statement &st, std::optional<size_t> jam, size_t width,
                           const codegen::VectorUnit &unit, const TraceChoices &choices) {
  const int64_t vectors = rowOfVectors(st, width, unit) ? rowTileVectors(st, jam, width, unit)
                                                        : rowVectors(st.extents[width], unit);
  RegisterTile tile;
  if (jam) {
    const int64_t accumulators = tileAccumulators(unit, vectors);
    tile.loops.push_back(
        {*jam,
         static_cast<int>(largestDivisor(
             st.extents[*jam],
             unrollLimit(std::min<int64_t>(accumulators / vectors, kMaxNchwTileRows), choices)))});
    tile.rowsOutside = rowsOutsideChoice(choices.order, true);
    tile.channels = *jam;
    tile.columns = width;
  }
  if (vectors > 1)
    tile.loops.push_back({width, static_cast<int>(vectors * unit.lanes)});
  tile.loops.push_back({width, unit.lanes});
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

/// The block_channels block of max-pool statement `st` of program.calls[call]: the block of
/// the blocked activation whose NCHW copy it reads (copiedOutBlock), when block_channels
/// accepts it, so forwardBlockedLayouts drops that copy and the pool's pack; 0 otherwise (a
/// pool packing an NCHW input of its own ran slower: 1x64x112x112, 3x3 stride 2, 0.27 ->
/// 0.38 ms on Zen 5).
int poolBlock(const ir::Program &program, size_t call, const ir::Statement &st) {
  if (st.value.op != ir::Expr::Op::Load)
    return 0;
  const int64_t block = copiedOutBlock(program, call, st.value.access.tensor);
  return block > 0 && blockChannelsRefusal(program, call, st.name, block).empty()
             ? static_cast<int>(block)
             : 0;
}

/// The tensor conv statement `name` of program.calls[call] reads its input from: the source of
/// the kernel's copy into the tensor it loads (pad_input's padded copy, subsample_input's
/// compact one), or that tensor.
int convInputSource(const ir::Program &program, size_t call, const std::string &name) {
  const ir::Kernel &kernel = program.calls[call].kernel;
  const int loaded = findStatement(kernel, name)->value.args[0].access.tensor;
  for (const ir::Statement &st : kernel.statements)
    if (st.write.tensor == loaded && st.value.op == ir::Expr::Op::Load)
      return st.value.access.tensor;
  return loaded;
}

/// The input block of conv statement `name` of program.calls[call] blocked by `block`: the
/// block of the blocked activation whose NCHW copy its input is (copiedOutBlock), when
/// block_channels accepts it, so forwardBlockedLayouts drops that copy and the conv's pack (a
/// 1x1 conv 144 -> 24, blocked by 8 on a 16-lane unit, read its nChw16c input through an NCHW
/// copy and a pack into nChw8c); 0 (block_channels' default) otherwise.
int forwardedInputBlock(const ir::Program &program, size_t call, const std::string &name,
                        int block) {
  const int64_t input = copiedOutBlock(program, call, convInputSource(program, call, name));
  return input > 0 && blockChannelsRefusal(program, call, name, block, input).empty()
             ? static_cast<int>(input)
             : 0;
}

/// Applies block_channels with `block` and input block `inputBlock` (0: the default) to
/// statement `name` of program.calls[call]; returns its step.
ScheduleStep applyBlockChannels(ir::Program &program, size_t call, const std::string &name,
                                int block, int inputBlock = 0) {
  inputBlock = static_cast<int>(blockChannels(program, call, name, block, inputBlock));
  return {"block_channels", {name}, {{"block", {block}}, {"input_block", {inputBlock}}}};
}

} // namespace

std::optional<RegisterTile> defaultRegisterTile(const ir::Statement &st,
                                                const codegen::VectorUnit &unit,
                                                const TraceChoices &choices) {
  if (!st.constraints.empty() || defaultLoopOrder(st) == identityOrder(st.depth()))
    return std::nullopt;
  const size_t width = static_cast<size_t>(defaultLoopOrder(st).back());
  if (!unitStride(st, width))
    return std::nullopt;
  if (st.extents[width] >= kMinChannelBlock && unit.lanes % st.extents[width] == 0)
    return vectorTile(st, width, unit, choices);
  std::optional<size_t> jam = defaultJamDimension(st);
  if (jam && *jam > width)
    return std::nullopt;
  if (rowOfVectors(st, width, unit) ||
      (jam && partialRowOfVectors(st, width, unit) && partialVectorGroups(st, unit)))
    return rowVectorTile(st, jam, width, unit, choices);
  if (!jam)
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
                                             const codegen::VectorUnit &unit,
                                             const TraceChoices &choices) {
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
    const ir::Statement *st = findStatement(program.calls[call].kernel, name);
    if (st->update == ir::Update::Max) {
      if (const int block = poolBlock(program, call, *st))
        steps.push_back(applyBlockChannels(program, call, name, block));
      continue;
    }
    const bool chosen =
        choices.block > 0 && blockChannelsRefusal(program, call, name, choices.block).empty();
    if (!chosen && keepsNchwLayout(*st, unit))
      continue;
    if (isStridedWindowlessConvolution(program.calls[call].kernel, name)) {
      subsampleInput(program, call, name);
      steps.push_back({"subsample_input", {name}, {}});
    }
    const int block = chosen ? choices.block : channelBlock(program, call, name, unit);
    if (block == 0)
      continue;
    steps.push_back(applyBlockChannels(program, call, name, block,
                                       forwardedInputBlock(program, call, name, block)));
  }
  return steps;
}

bool keepsNchwLayout(const ir::Statement &st, const codegen::VectorUnit &unit) {
  ConvStatement conv;
  if (!st.constraints.empty() || !matchConvStatement(st, conv).empty())
    return false;
  const size_t width = static_cast<size_t>(defaultLoopOrder(st).back());
  if (!unitStride(st, width))
    return false;
  if (partialVectorGroups(st, unit)) {
    if (!rowOfVectors(st, width, unit) && !partialRowOfVectors(st, width, unit))
      return false;
    std::optional<RegisterTile> tile = defaultRegisterTile(st, unit);
    return tile && accumulatorVectors(*tile, st, unit) >= kMinTileAccumulators;
  }
  if (!rowOfVectors(st, width, unit))
    return false;
  if (conv.group)
    return conv.inPerGroup == 1 && conv.outPerGroup == 1; // depthwise
  for (size_t d = 0; d < st.depth(); ++d)
    if (st.reducesOver(d) && d != conv.c && st.extents[d] != 1)
      return false; // not 1x1
  std::optional<size_t> jam = defaultJamDimension(st);
  if (!jam || *jam >= width)
    return false;
  return rowTileVectors(st, jam, width, unit) > 1 || st.extents[conv.k] <= unit.lanes;
}

std::optional<size_t> defaultJamDimension(const ir::Statement &st) {
  std::vector<int> order = defaultLoopOrder(st);
  if (order == identityOrder(st.depth()))
    return std::nullopt;
  size_t innermost = static_cast<size_t>(order.back());
  const std::vector<const ir::Access *> loads = ir::loadsOf(st.value);
  std::vector<const ir::Access *> streamed;
  for (const ir::Access *load : loads)
    if (usesIterator(*load, innermost))
      streamed.push_back(load);
  std::optional<size_t> best;
  for (size_t d = 0; d < st.depth(); ++d) {
    bool reused = std::none_of(streamed.begin(), streamed.end(),
                               [d](const ir::Access *a) { return usesIterator(*a, d); });
    if (d == innermost || st.reducesOver(d) || !reused || streamed.empty() || st.extents[d] < 2)
      continue;
    if (!best || st.extents[d] > st.extents[*best])
      best = d;
  }
  return best;
}

std::vector<int> defaultLoopOrder(const ir::Statement &st) {
  std::vector<int> identity = identityOrder(st.depth());
  if (st.update == ir::Update::Assign || !st.hasReduction())
    return identity;
  std::vector<int> outer, reduction;
  for (int d : identity)
    (st.reducesOver(static_cast<size_t>(d)) ? reduction : outer).push_back(d);
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
                            const codegen::VectorUnit &unit, const TraceChoices &choices) {
  return defaultSchedule(scop, deps, kernel, node, unit, choices).trace;
}

ScheduledTrace defaultSchedule(const poly::Scop &scop, const poly::Dependences &deps,
                               const ir::Kernel &kernel, const std::string &node,
                               const codegen::VectorUnit &unit, const TraceChoices &choices) {
  TraceBuilder builder(scop, deps, node, unit, choices);
  for (const ir::Statement &st : kernel.statements)
    if (!builder.registerTile(st)) {
      builder.interchangeToDefault(st);
      builder.jam(st);
    }
  builder.fuseAroundReductions(kernel);
  for (const ir::Statement &st : kernel.statements)
    builder.parallelizeOutermost(st, kernel);
  return {builder.trace(), builder.schedule()};
}

} // namespace nasc::compiler
