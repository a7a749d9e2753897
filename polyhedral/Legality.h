// The legality questions asked of a Scop's dependences, answered in one place: which
// dependences a schedule breaks, which a band member runs backwards, which a loop carries.
// The schedule primitives' verdicts and their refusal messages both come from these sets.
#pragma once

#include "polyhedral/Dependences.h"

#include <isl/cpp.h>

namespace nasc::poly {

/// The dependence instances that `schedule` (over the Scop's domain) does not keep, as Polly's
/// Dependences::isValidSchedule: source -> sink pairs whose sink's schedule value is not
/// lexicographically greater than the source's. Reduction dependences may be reordered; in
/// exchange every other dependence into (out of) an instance of a reduction group counts for
/// all instances of that group (the whole reduction runs after its initialisation and before
/// its consumers). Empty iff the schedule is valid.
isl::union_map brokenDependences(const Dependences &deps, const isl::schedule &schedule);

/// Whether `schedule` keeps every dependence: brokenDependences(deps, schedule) is empty.
bool isValidSchedule(const Scop &scop, const Dependences &deps, const isl::schedule &schedule);

/// The dependence instances (as brokenDependences counts them) between two instances of
/// `band`'s domain that agree on the schedule outside `band` (its prefix schedule) and that band
/// member `member` runs backwards (the sink's value is below the source's). `band` is permutable
/// in members 0 .. k - 1, hence tileable there, iff this is empty for each of them.
isl::union_map reversedAtMember(const Dependences &deps, const isl::schedule_node_band &band,
                                int member);

/// The pairs of instances of `band`'s domain that must not run in different iterations of band
/// member `member` at once: pairs that agree on the prefix schedule and on members
/// 0 .. member - 1 but differ at `member`, among the non-reduction dependences (`others`) and
/// every pair of instances of one reduction (`groups`; not only the transitively reduced
/// `reductions`, since a reduction's instances may be reordered, so a chain of its
/// dependences each carried outside the loop may still join two instances the loop separates).
/// Empty iff the member is parallel, as Polly's Dependences::isParallel.
/// Throws nasc::Error if `band` is not a band node or `member` is out of range.
isl::union_map carriedAtMember(const Dependences &deps, const isl::schedule_node &band, int member);

/// Whether band member `member` of `band` carries nothing: carriedAtMember is empty.
/// Reductions count (running a reduction loop in parallel would need privatisation).
/// Throws nasc::Error if `band` is not a band node or `member` is out of range.
bool isParallel(const Scop &scop, const Dependences &deps, const isl::schedule_node &band,
                int member);

} // namespace nasc::poly
