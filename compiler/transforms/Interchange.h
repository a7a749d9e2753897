// Loop interchange: permutes the members of one statement's band in an isl schedule tree,
// checked against the dependences (the first schedule transformation of issue #3).
#pragma once

#include "compiler/transforms/TransformErrors.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <isl/cpp.h>

#include <string>
#include <vector>

namespace nasc::compiler {

/// `scop.schedule` with the members of the outermost band holding instances of `statement`
/// permuted: new member i is old member `order[i]` (so for a statement with band
/// (n, k, oh, ow, c, r, s), order {0, 1, 2, 4, 5, 6, 3} gives (n, k, oh, c, r, s, ow)).
/// Member flags (permutable, coincident) and isl AST loop types follow their members. Built with
/// isl's schedule-tree API and checked with poly::isValidSchedule. Throws:
///  - UnknownStatement if `scop.domain` has no statement named `statement`, or its band also
///    schedules other statements (interchanging it would reorder them too);
///  - InvalidPermutation if `order` is not a permutation of 0 .. (members - 1);
///  - IllegalTransformation if the new schedule breaks a dependence of `deps`; the message names
///    the broken dependence instances in isl notation.
isl::schedule interchange(const poly::Scop &scop, const poly::Dependences &deps,
                          const std::string &statement, const std::vector<int> &order);

} // namespace nasc::compiler
