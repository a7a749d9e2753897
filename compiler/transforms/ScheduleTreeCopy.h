// Copies a subtree of an isl schedule tree into a standalone schedule, for the primitives that
// regroup subtrees (fuse): isl has no operation that moves a subtree elsewhere in a tree.
#pragma once

#include "compiler/transforms/PrimitiveErrors.h"

#include <isl/cpp.h>

namespace nasc::compiler {

/// The subtree rooted at `node` as a schedule whose domain is `node`'s domain (the instances
/// reaching `node`). Rebuilt bottom-up with isl::schedule::from_domain (leaf),
/// insert_partial_schedule (band: partial schedule, permutable flag, coincident flag per
/// member, AST build options, i.e. each member's AST loop type), insert_mark (mark) and
/// isl_schedule_sequence (sequence: one filter per child, the filters gisted against the union
/// of the children's domains, nested sequences flattened), so the copy schedules every
/// instance as the subtree does.
/// Throws UnsupportedScheduleNode for any other node type (set, context, guard, extension,
/// expansion, domain, a filter not under a sequence) and for a band with an isolate option
/// (anchored to the outer schedule, which the copy does not keep).
isl::schedule subtreeSchedule(const isl::schedule_node &node);

} // namespace nasc::compiler
