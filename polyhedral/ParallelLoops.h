// Marks the loops proved parallel by the dependences: an isl "parallel" mark above the
// outermost parallel band member of each loop nest, for codegen to run on several threads; and
// the names of the "vector" marks that ask codegen for vector loops of a given width.
#pragma once

#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <isl/cpp.h>

#include <optional>
#include <string>

namespace nasc::poly {

/// Name of the isl mark node placed above a band whose first member is a parallel loop.
inline constexpr const char *kParallelMark = "parallel";

/// Whether `node` is a mark node named kParallelMark.
bool isParallelMark(const isl::schedule_node &node);

/// Name of the isl mark node placed above a one-member band whose loop codegen must vectorize
/// (compiler::vectorize): "vector" lets LLVM choose the vector width, "vector:<w>" asks for
/// width w.
inline constexpr const char *kVectorMark = "vector";

/// The name of a vector mark asking for `width` lanes (0 = LLVM's choice): "vector" or
/// "vector:<width>".
std::string vectorMarkName(int width);

/// The width a vector mark named `markName` asks for (0 = LLVM's choice), or nullopt if
/// `markName` is not kVectorMark or kVectorMark + ":" + a positive decimal integer.
std::optional<int> vectorMarkWidth(const std::string &markName);

/// Whether member `member` of `band` takes at most one value for each value of the loops around
/// it (the prefix schedule and the band's earlier members): a loop of at most one iteration,
/// which isl's AST generator drops (e.g. the point loop of a tile of size 1).
bool isDegenerate(const isl::schedule_node_band &band, int member);

/// Whether a kParallelMark in `schedule` is over a band whose first member isDegenerate: isl's
/// AST drops that loop and the mark would apply to the loop below it (e.g. a reduction loop).
bool hasParallelMarkOverDegenerateLoop(const isl::schedule &schedule);

/// Throws nasc::Error (an internal error: compiler::applyStep refuses every step that leaves
/// such a mark) if hasParallelMarkOverDegenerateLoop(schedule).
void requireMarkedLoops(const isl::schedule &schedule);

/// The outermost member of `band` (a band node of a schedule tree over `scop`'s domain) that
/// isParallel (reduction dependences counted) and takes more than one value on the band's
/// domain, or -1 if there is none.
int outermostParallelMember(const Scop &scop, const Dependences &deps,
                            const isl::schedule_node_band &band);

/// `scop.schedule` with, for each band not below another marked band, a mark node named
/// kParallelMark above its outermost member that isParallel (reductions counted as
/// dependences) and takes more than one value on the band's domain (isl's AST drops loops of
/// one iteration); the band is split before that member when it is not the first. Bands with
/// no such member are left alone and their descendants are searched instead, so each loop
/// nest gets at most one parallel loop.
isl::schedule markParallelLoops(const Scop &scop, const Dependences &deps);

} // namespace nasc::poly
