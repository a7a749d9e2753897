// Loop vectorization: marks a statement's innermost loop for vector code of a given width (an
// isl mark that codegen turns into llvm.loop.vectorize metadata), refused unless it carries no
// dependence (issue #3).
#pragma once

#include "compiler/transforms/PrimitiveErrors.h"
#include "compiler/transforms/TransformErrors.h"
#include "polyhedral/Dependences.h"
#include "polyhedral/Scop.h"

#include <isl/cpp.h>

#include <string>

namespace nasc::compiler {

/// `scop.schedule` with member `member` of the statement's band at depth `band` (0 = its
/// outermost band, see statementBand) marked for vectorization: the band is split before the
/// member when `member` > 0, so it is alone in its band, and a mark node named
/// poly::vectorMarkName(width) ("vector", or "vector:<width>") is inserted directly above it.
/// codegen::emitKernel gives that loop `llvm.loop.vectorize.enable` and, if `width` > 0,
/// `llvm.loop.vectorize.width` = width. `width` 0 lets LLVM choose.
/// E.g. matmul band (i, j, k) interchanged to (i, k, j) and vectorized at member 2 by 8 gives
/// (i, k) over mark "vector:8" over (j).
/// Legality: the member is the statement's innermost loop (the last member of a band with no
/// band below it) and carries no dependence, reductions included (vectorizing a reduction
/// would need a private vector accumulator), i.e. poly::isParallel.
/// Throws:
///  - InvalidFactor if `width` is not 0 or a power of two in 2 .. 64;
///  - UnknownStatement / NoSuchBand as statementBand;
///  - MemberOutOfRange if `member` is not in 0 .. (members - 1);
///  - NotInnermost if the member is not the statement's innermost loop;
///  - CarriedDependence if the member carries a dependence; the message names the carried
///    instances in isl notation (carriedAtMember).
isl::schedule vectorize(const poly::Scop &scop, const poly::Dependences &deps,
                        const std::string &statement, int member, int width, int band = 0);

} // namespace nasc::compiler
