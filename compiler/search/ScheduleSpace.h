// The schedule part of nasc search's space (docs/search.md, "Schedule choices"): per Conv
// workload, the default trace with other choices of channel block, register-tile jam, unroll
// and loop order (compiler::TraceChoices), the default one first.
#pragma once

#include "codegen/Target.h"
#include "compiler/search/ConvWorkload.h"
#include "compiler/transforms/DefaultSchedule.h"

#include <vector>

namespace nasc::search {

/// Every choice the search tries for a workload on a machine with `unit`, the default ({}) first:
/// block in {0, lanes/2 when that is at least 8 (narrower blocks run at SSE width: 1.7-2x slower
/// on AVX2, measured on CIFAR ResNet-34's 3x3 convs)} x jam in {0, 1, 2} x unroll in {0, 4, 8}
/// x order in {0, kChannelsOutside, kRowsOutside} (one of the last two is the default's own).
std::vector<compiler::TraceChoices> traceChoiceSpace(const codegen::VectorUnit &unit);

/// The choices of `candidates` that give `workload` different default traces (layout steps and
/// register tiles), the first of each kind in order, so no two measure the same code. Throws
/// nasc::Error when the workload does not lower.
std::vector<compiler::TraceChoices>
distinctChoices(const ConvWorkload &workload, const codegen::VectorUnit &unit,
                const std::vector<compiler::TraceChoices> &candidates);

/// distinctChoices of every choice of traceChoiceSpace(unit).
std::vector<compiler::TraceChoices> distinctChoices(const ConvWorkload &workload,
                                                    const codegen::VectorUnit &unit);

/// `choices` with each TraceChoices::order in {0, kChannelsOutside, kRowsOutside}, in that order.
std::vector<compiler::TraceChoices> withEachOrder(compiler::TraceChoices choices);

} // namespace nasc::search
