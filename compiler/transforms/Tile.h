// Loop tiling: tiles the leading members of a statement's band with isl's band tiling, refused
// unless those members are permutable with respect to the dependences (issue #3).
#pragma once

#include "compiler/transforms/PrimitiveErrors.h"
#include "compiler/transforms/TransformErrors.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <isl/cpp.h>

#include <string>
#include <vector>

namespace nasc::compiler {

/// `scop.schedule` with the first sizes.size() members (values i_0 .. i_{k-1}) of the
/// statement's band at depth `band` (0 = its outermost band, see statementBand) tiled by
/// isl_schedule_node_band_tile: the band is split after member k - 1 if it has more members,
/// then replaced by a tile band (floor(i_0 / sizes[0]), ..., floor(i_{k-1} / sizes[k-1])) over
/// a point band (i_0, ..., i_{k-1}) whose loops run over the original iterator values (isl's
/// tile_scale_tile_loops = 0 and tile_shift_point_loops = 0, set for this call only). Multi-level
/// tiling: tile the point band again with `band` + 1.
/// E.g. a matmul band (i, j, k) tiled by {4, 2} gives (floor(i / 4), floor(j / 2)) over (i, j)
/// over (k).
/// Legality: every member tiled must run no dependence backwards among the band's instances
/// that share its outer schedule (the tiled members are permutable); the result is also checked
/// with poly::isValidSchedule.
/// Throws:
///  - InvalidFactor if a size is < 1;
///  - UnknownStatement / NoSuchBand as statementBand;
///  - MemberOutOfRange if `sizes` is empty or longer than the band;
///  - IllegalTransformation if a tiled member runs a dependence backwards (the message names the
///    member and the dependence in isl notation) or the new schedule breaks a dependence.
isl::schedule tile(const poly::Scop &scop, const poly::Dependences &deps,
                   const std::string &statement, const std::vector<int> &sizes, int band = 0);

} // namespace nasc::compiler
