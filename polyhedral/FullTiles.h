// Full tiles apart from partial ones: isl's "isolate" AST option on bands whose unrolled
// members do not always take all their values (a split whose factor does not divide the extent).
#pragma once

#include <isl/cpp.h>

namespace nasc::poly {

/// `schedule` with isl's `isolate` AST build option (isl manual, "AST Generation Options
/// (Schedule Tree)") on each band that has a member of AST loop type unroll, is not directly
/// under a mark node, and whose unrolled members do not take all their values at some point
/// of the other loops: the isolated part is the points of the outer bands' and this band's
/// other members outside its last unrolled one at which every unrolled member takes every
/// value of its range (a full tile), and the isolated part gets the band's AST loop types.
/// The members inside the last unrolled one do not count: a row of vectors whose last vector
/// is partial (56 columns in 4 unrolled vectors of 16) is one tile, each vector a loop of its
/// own lanes. isl then generates the full tiles
/// without the tail's guards (which would otherwise sit inside the loops below the tile's
/// outer loop, e.g. a convolution's reduction loops) and the partial tile after them. Bands
/// whose unrolled members always take all their values (every split divides) are returned
/// unchanged, so is a band whose points are not in one space. The option changes only how the
/// AST is generated, never the order of execution.
isl::schedule isolateFullTiles(const isl::schedule &schedule);

} // namespace nasc::poly
