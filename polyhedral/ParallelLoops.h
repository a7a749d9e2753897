// Marks the loops proved parallel by the dependences: an isl "parallel" mark above the
// outermost parallel band member of each loop nest, for codegen to run on several threads.
#pragma once

#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <isl/cpp.h>

namespace nasc::poly {

/// Name of the isl mark node placed above a band whose first member is a parallel loop.
inline constexpr const char *kParallelMark = "parallel";

/// `scop.schedule` with, for each band not below another marked band, a mark node named
/// kParallelMark above its outermost member that isParallel (reductions counted as
/// dependences) and takes more than one value on the band's domain (isl's AST drops loops of
/// one iteration); the band is split before that member when it is not the first. Bands with
/// no such member are left alone and their descendants are searched instead, so each loop
/// nest gets at most one parallel loop.
isl::schedule markParallelLoops(const Scop &scop, const Dependences &deps);

} // namespace nasc::poly
