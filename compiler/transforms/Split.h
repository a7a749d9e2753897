// Strip-mining: splits one member of a statement's band into an outer (floor(i / factor)) and an
// inner (i mod factor) member, checked against the dependences (issue #3).
#pragma once

#include "compiler/transforms/PrimitiveErrors.h"
#include "compiler/transforms/TransformErrors.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <isl/cpp.h>

#include <string>

namespace nasc::compiler {

/// `scop.schedule` with member `member` (schedule value i) of the statement's band at depth
/// `band` (0 = its outermost band, see statementBand) replaced by two adjacent members
/// floor(i / factor) and i mod factor, e.g. band (i, j, k) split at member 1 by 4 gives
/// (i, floor(j / 4), j mod 4, k). Built on the band's partial schedule with isl's
/// union_pw_aff floor / mod operations. The band keeps its permutable flag only if no member
/// of the new band runs a dependence backwards (i mod factor does across a block boundary when
/// member `member` carries a dependence); both new members keep the old member's coincident
/// flag and isl AST loop type. Checked with poly::isValidSchedule (strip mining alone keeps every
/// dependence). Throws:
///  - InvalidFactor if `factor` < 1;
///  - UnknownStatement / NoSuchBand as statementBand;
///  - MemberOutOfRange if `member` is not in 0 .. (members - 1);
///  - IllegalTransformation if the new schedule breaks a dependence; the message names it in isl
///    notation.
isl::schedule split(const poly::Scop &scop, const poly::Dependences &deps,
                    const std::string &statement, int member, int factor, int band = 0);

} // namespace nasc::compiler
