// Loop fusion: makes consecutive loop nests of a kernel share their outer loops (producer into
// consumer, e.g. a conv's bias init, accumulation and ReLU per output row), checked against the
// dependences (issue #3).
#pragma once

#include "compiler/transforms/PrimitiveErrors.h"
#include "compiler/transforms/TransformErrors.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <isl/cpp.h>

#include <string>
#include <vector>

namespace nasc::compiler {

/// `scop.schedule` with the children of its top-level sequence that run `statements` replaced
/// by one child: a band of `depth` members whose member i is, for each statement, member i of
/// its child's outer band, over a sequence holding each child's rest in order (the outer band's
/// members from `depth` on, then its original subtree, flags and loop types kept). E.g. matmul
/// S0[i, j] (C = 0), S1[i, j, k] (C += A * B) fused at depth 2:
///   for (i, j) { S0(i, j); for (k) S1(i, j, k); }
/// A child may be an earlier fused group: `statements` must then name all of its statements.
/// The top-level sequence is dropped if the fused child is its only one. The new band is
/// permutable iff none of its members runs a dependence backwards (see reversedAtMember); its
/// members are not marked coincident. Built by rebuilding the tree (ScheduleTreeCopy.h), checked
/// with poly::isValidSchedule.
/// After fusion the shared band holds several statements, so interchange/split/tile of one of
/// them refuse its band 0 (UnknownStatement, see statementBand); band 1 is the statement's own
/// remainder band below it (if its outer band had more than `depth` members). Interchange a
/// statement before fusing it.
/// Throws:
///  - InvalidFusion if `statements` has fewer than two names, names one twice, or the named
///    statements are not whole consecutive children of the top-level sequence, listed child by
///    child in sequence order (any order within a child), or are all in one child;
///  - UnknownStatement if a name is not a statement of `scop.domain`;
///  - MemberOutOfRange if `depth` < 1 or a child's outer band has fewer than `depth` members;
///  - NoSuchBand if a child's subtree does not start with a band;
///  - UnsupportedScheduleNode if a child's subtree holds a node ScheduleTreeCopy cannot rebuild;
///  - IllegalTransformation if the new schedule breaks a dependence, e.g. a consumer reading an
///    element its producer writes in a later iteration of a fused loop; the message names the
///    broken dependence in isl notation.
isl::schedule fuse(const poly::Scop &scop, const poly::Dependences &deps,
                   const std::vector<std::string> &statements, int depth);

} // namespace nasc::compiler
