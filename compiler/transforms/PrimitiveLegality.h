// The text of the dependence sets (polyhedral/Legality.h) that schedule primitives name when
// they refuse a request.
#pragma once

#include "polyhedral/Legality.h"

#include <isl/cpp.h>

#include <string>

namespace nasc::compiler {

/// "the dependence D", D in isl notation: the direct dependences among poly::carriedAtMember,
/// or, when the loop carries only pairs of one reduction that no single dependence links, those
/// pairs; followed by ", a reduction (it would need a private accumulator)" if some of it joins
/// two instances of one reduction. For CarriedDependence messages.
std::string carriedText(const poly::Dependences &deps, const isl::schedule_node_band &band,
                        int member);

/// isl's text of `map`, e.g. "{ S[i, j] -> S[i' = 1 + i, j' = -1 + j] : 0 < i <= 2 }".
std::string islText(const isl::union_map &map);

} // namespace nasc::compiler
