// Finds the band of one statement in a Scop's schedule tree, for the schedule primitives.
#pragma once

#include "polyhedral/Scop.h"

#include <isl/cpp.h>

#include <string>
#include <vector>

namespace nasc::compiler {

/// The band at depth `depth` (0 = outermost) among the nested bands of `scop.schedule` that
/// hold instances of `statement`: depth 0 is the outermost such band, depth 1 the outermost
/// band below it (e.g. the point band after tile), and so on. `primitive` names the caller in
/// messages ("split", "tile").
/// Throws:
///  - UnknownStatement if `scop.domain` has no statement named `statement`, or the band also
///    schedules other statements (transforming it would transform them too) and `allowShared`
///    is false (parallelize allows it: marking a shared loop parallel is legal when no
///    statement's dependence is carried by it);
///  - NoSuchBand if the statement has no band at `depth` (or `depth` < 0).
isl::schedule_node_band statementBand(const poly::Scop &scop, const std::string &statement,
                                      int depth, const std::string &primitive,
                                      bool allowShared = false);

/// The names of the statements whose instances `node` schedules (its domain's sets), in the
/// domain's order.
std::vector<std::string> statementsUnder(const isl::schedule_node &node);

} // namespace nasc::compiler
