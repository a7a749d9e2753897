// The schedule nasc uses when no search has chosen one: the initial schedule with the
// reduction loops of each reduction statement moved inside, so the innermost loop is a
// contiguous output dimension that LLVM vectorizes.
#pragma once

#include "ir/Kernel.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <isl/cpp.h>

#include <vector>

namespace nasc::compiler {

/// The loop order defaultSchedule gives statement `st`, as an interchange order (new member i
/// is iterator order[i]): for an Add/Max update with reduction dimensions, the reduction
/// dimensions (in their order) moved before the innermost non-reduction dimension, e.g.
/// conv (n, k, oh, ow, c, r, s) -> (n, k, oh, c, r, s, ow); otherwise the identity.
std::vector<int> defaultLoopOrder(const ir::Statement &st);

/// `scop.schedule` (built by poly::buildScop from `kernel`, dependences `deps`) with each
/// statement's band permuted to defaultLoopOrder through compiler::interchange, so every
/// step is legality-checked; a statement whose reordering would break a dependence keeps its
/// order.
isl::schedule defaultSchedule(const poly::Scop &scop, const poly::Dependences &deps,
                              const ir::Kernel &kernel);

} // namespace nasc::compiler
