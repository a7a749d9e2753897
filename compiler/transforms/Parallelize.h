// Loop parallelization (issue #3): marks one member of a statement's band as a parallel loop (an
// isl mark that codegen outlines into nasc_parallel_for), refused if it carries a dependence.
#pragma once

#include "compiler/transforms/PrimitiveErrors.h"
#include "compiler/transforms/TransformErrors.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <isl/cpp.h>

#include <string>

namespace nasc::compiler {

/// `scop.schedule` with member `member` of the statement's band at depth `band` (0 = its
/// outermost band, see statementBand) marked parallel: the band is split before and after the
/// member, so the member is alone in its band, and a mark node named poly::kParallelMark is
/// inserted directly above that band (codegen::emitKernel runs its loop on several threads).
/// Alone in its band, the marked loop stays the one under the mark through later primitives:
/// interchange cannot move another member there, and split / tile / unroll of it put
/// floor(i / f) there, which carries no dependence when i carries none.
/// E.g. matmul band (i, j, k) parallelized at member 1 gives (i) over mark "parallel" over (j)
/// over (k). The band may be shared with other statements (after fuse): the loop then runs
/// them all in parallel, legal when it carries no dependence of any of them.
/// Legality: poly::isParallel, reductions counted (running a reduction loop in parallel would
/// need a private accumulator per thread).
/// Throws:
///  - UnknownStatement / NoSuchBand as statementBand (a shared band is accepted);
///  - MemberOutOfRange if `member` is not in 0 .. (members - 1);
///  - SingleIteration if the member takes at most one value (poly::isDegenerate): isl's AST
///    drops such a loop and the mark would fall on the loop below it;
///  - NestedParallelism if the band is below a parallel mark or has one below it;
///  - CarriedDependence if the member carries a dependence; the message names the carried
///    instances in isl notation (carriedAtMember).
isl::schedule parallelize(const poly::Scop &scop, const poly::Dependences &deps,
                          const std::string &statement, int member, int band = 0);

} // namespace nasc::compiler
