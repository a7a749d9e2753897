#include "compiler/transforms/DefaultSchedule.h"

#include "compiler/transforms/BandLookup.h"
#include "compiler/transforms/BlockChannels.h"
#include "compiler/transforms/KernelEdit.h"
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
  TraceBuilder(const poly::Scop &scop, const poly::Dependences &deps, const std::string &node,
               const codegen::VectorUnit &unit)
      : current_(scop), deps_(deps), unit_(unit) {
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

  /// The register tile of a statement over a box (docs/performance.md): split J (the tile's
  /// rows) and O (its columns) where the tile does not take the whole extent, order the loops
  /// (outer outputs with J0 and O0, reductions, J1, O1) and unroll J1. Returns false, adding
  /// nothing, when the statement does not qualify.
  bool registerTile(const ir::Statement &st) {
    std::optional<RegisterTile> tile = defaultRegisterTile(st, unit_);
    if (!tile)
      return false;
    const int J = static_cast<int>(tile->jam), O = static_cast<int>(tile->width);
    const bool splitJ = tile->rows < st.extents[tile->jam];
    const bool splitO = tile->columns < st.extents[tile->width];
    auto mapped = [&](int d) { return d + (splitJ && d > J ? 1 : 0) + (splitO && d > O ? 1 : 0); };
    std::vector<int> order, reductions;
    for (int d = 0; d < static_cast<int>(st.depth()); ++d)
      if ((splitJ || d != J) && (splitO || d != O))
        (isReductionDim(st, static_cast<size_t>(d)) ? reductions : order).push_back(mapped(d));
    order.insert(order.end(), reductions.begin(), reductions.end());
    order.push_back(mapped(J) + (splitJ ? 1 : 0));
    order.push_back(mapped(O) + (splitO ? 1 : 0));
    auto splitStep = [&](int member, int factor) {
      return ScheduleStep{
          "split", {st.name}, {{"member", {member}}, {"factor", {factor}}, {"band", {0}}}};
    };
    return (!splitJ || tryStep(splitStep(J, tile->rows))) &&
           (!splitO || tryStep(splitStep(mapped(O), tile->columns))) &&
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
  codegen::VectorUnit unit_;
  KernelSchedule trace_;
};

} // namespace

namespace {

/// The tile of a statement whose innermost output dimension `width` fits one vector (the k1 of
/// a block_channels conv): that vector times the rows of the innermost other output dimension
/// that no load along `width` uses (ow), as many as divide it, up to kMaxVectorTileRows and the
/// registers left beside a weight vector and a broadcast.
std::optional<RegisterTile> vectorTile(const ir::Statement &st, size_t width,
                                       const codegen::VectorUnit &unit) {
  std::vector<const ir::Access *> loads;
  collectLoads(st.value, loads);
  std::optional<size_t> jam;
  for (size_t d = 0; d < width; ++d)
    if (!isReductionDim(st, d) && st.extents[d] > 1 &&
        std::none_of(loads.begin(), loads.end(), [&](const ir::Access *a) {
          return usesIterator(*a, width) && usesIterator(*a, d);
        }))
      jam = d;
  if (!jam)
    return std::nullopt;
  int64_t rows = std::min<int64_t>(kMaxVectorTileRows, unit.registers - 4);
  while (rows > 1 && st.extents[*jam] % rows != 0)
    --rows;
  return RegisterTile{*jam, width, static_cast<int>(rows), static_cast<int>(st.extents[width])};
}

/// The block_channels block of a conv with `K` output channels: the vector's lanes, halved
/// until it divides K; 0 below kMinChannelBlock.
int channelBlock(int64_t K, const codegen::VectorUnit &unit) {
  int block = unit.lanes;
  while (block >= kMinChannelBlock && K % block != 0)
    block /= 2;
  return block >= kMinChannelBlock ? block : 0;
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
  return RegisterTile{*jam, width, static_cast<int>(rows), *columns};
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
    const ir::Kernel &kernel = program.calls[call].kernel;
    const ir::Statement &st = *findStatement(kernel, name);
    if (st.write.index.size() != 4)
      continue;
    const int block =
        channelBlock(kernel.tensors.at(static_cast<size_t>(st.write.tensor)).shape[1], unit);
    if (block == 0 || !blockChannelsRefusal(program, call, name, block).empty())
      continue;
    const ir::Access &input = st.value.args.at(0).access;
    const int inputBlock = static_cast<int>(defaultInputBlock(
        kernel.tensors.at(static_cast<size_t>(input.tensor)).shape[1], block));
    blockChannels(program, call, name, block, inputBlock);
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
  TraceBuilder builder(scop, deps, node, unit);
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
