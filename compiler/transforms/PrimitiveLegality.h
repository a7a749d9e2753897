// The dependence sets that the schedule primitives name when they refuse a request.
#pragma once

#include "polyhedral/Dependences.h"

#include <isl/cpp.h>

#include <string>

namespace nasc::compiler {

/// The dependence instances of `deps` that `schedule` does not keep (source not before sink),
/// with the non-reduction dependences into / out of a reduction extended to its whole group,
/// as poly::isValidSchedule counts them. Empty iff the schedule is valid.
isl::union_map brokenDependences(const poly::Dependences &deps, const isl::schedule &schedule);

/// The dependence instances (as brokenDependences counts them) between two instances of
/// `band`'s domain that agree on the schedule outside `band` (its prefix schedule) and that band
/// member `member` runs backwards (the sink's value is below the source's). `band` is permutable
/// in members 0 .. k - 1, hence tileable there, iff this is empty for each of them.
isl::union_map reversedAtMember(const poly::Dependences &deps, const isl::schedule_node_band &band,
                                int member);

/// The dependence instances of `deps` (reductions included, as poly::isParallel counts them)
/// between two instances of `band`'s domain that agree on the prefix schedule and on members
/// 0 .. member - 1 of `band` but differ at member `member`: the dependences that loop carries.
/// Empty iff poly::isParallel(scop, deps, band, member).
isl::union_map carriedAtMember(const poly::Dependences &deps, const isl::schedule_node_band &band,
                               int member);

/// "the dependence <carriedAtMember in isl notation>", followed by ", a reduction (it would need
/// a private accumulator)" if some of it is a reduction dependence: for CarriedDependence
/// messages.
std::string carriedText(const poly::Dependences &deps, const isl::schedule_node_band &band,
                        int member);

/// isl's text of `map`, e.g. "{ S[i, j] -> S[i' = 1 + i, j' = -1 + j] : 0 < i <= 2 }".
std::string islText(const isl::union_map &map);

} // namespace nasc::compiler
