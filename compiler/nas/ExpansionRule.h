// The capacity gate's rule for spatial expansions (docs/capacity.md, "Spatial expansions"): the
// zero-cost proxies do not see spatial resolution, so the gate judges the upsampling Resizes a
// transformation adds (spatial_bottleneck's expansion) by the graph's structure.
#pragma once

#include "ir/Graph.h"

#include <optional>
#include <set>
#include <string>

namespace nasc::nas {

/// The largest upsampling factor per spatial dim the rule admits. Validation (docs/capacity.md):
/// spatial_bottleneck(4) lost 4.5-8.2 points wherever it was applied, (2) of a block's first conv
/// 0.1 points.
inline constexpr int64_t kMaxExpansionFactor = 2;

/// The names of the Resize nodes of `graph`: the expansions an original already has, which the
/// rule does not judge.
std::set<std::string> resizeNodes(const ir::Graph &graph);

/// Why `candidate` (shapes inferred) loses spatial resolution the proxies cannot see, or nullopt
/// when it does not. Judged: every Resize of `candidate` not named in `originalResizes` that
/// makes a spatial dim (dims 2..) larger. It is refused when it enlarges a dim by more than
/// kMaxExpansionFactor, or when a reader of its output is not a Conv with stride 1 and a window
/// of at least 2 in every spatial dim (a learned upsampling of the expanded points: a residual
/// Add, a strided or 1x1 Conv, or a graph output keeps the blocks of S x S copies). The reason
/// names the Resize and the reader.
std::optional<std::string> expansionRefusal(const std::set<std::string> &originalResizes,
                                            const ir::Graph &candidate);

} // namespace nasc::nas
