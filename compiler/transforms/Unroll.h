// Loop unrolling: strip-mines one member of a statement's band and has isl's AST generator
// unroll the inner loop, so the body appears `factor` times (issue #3).
#pragma once

#include "compiler/transforms/PrimitiveErrors.h"
#include "compiler/transforms/TransformErrors.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <isl/cpp.h>

#include <string>

namespace nasc::compiler {

/// `scop.schedule` with member `member` (schedule value i) of the statement's band at depth
/// `band` (0 = its outermost band, see statementBand) unrolled by `factor`:
///  - if i's values on the band's domain span more than `factor` integers (max - min + 1),
///    the member is split as split(scop, deps, statement, member, factor, band) does, into
///    floor(i / factor) and i mod factor, and the inner member gets isl's AST loop type
///    "unroll": the generated AST has a loop over blocks of `factor` copies of the body (the
///    last block guarded when the span is not a multiple of `factor`);
///  - otherwise (factor >= that span) the member itself gets loop type "unroll": the loop is
///    fully unrolled and the band keeps its members.
/// E.g. matmul band (i, j, k), k in 0 .. 5, unrolled at member 2 by 2 gives
/// (i, j, floor(k / 2), k mod 2) with k mod 2 unrolled; by 8 gives (i, j, k) with k unrolled.
/// The loop types survive later split, tile and interchange of the band. Legal by construction:
/// strip-mining keeps every dependence (split still checks it with poly::isValidSchedule), and
/// a loop type does not change the schedule.
/// Throws:
///  - InvalidFactor if `factor` < 2;
///  - UnknownStatement / NoSuchBand as statementBand;
///  - MemberOutOfRange if `member` is not in 0 .. (members - 1);
///  - IllegalTransformation if the new schedule breaks a dependence (as split).
isl::schedule unroll(const poly::Scop &scop, const poly::Dependences &deps,
                     const std::string &statement, int member, int factor, int band = 0);

} // namespace nasc::compiler
