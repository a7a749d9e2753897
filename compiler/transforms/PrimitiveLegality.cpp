#include "compiler/transforms/PrimitiveLegality.h"

#include <sstream>

namespace nasc::compiler {

std::string carriedText(const poly::Dependences &deps, const isl::schedule_node_band &band,
                        int member) {
  isl::union_map carried = poly::carriedAtMember(deps, band, member);
  isl::union_map direct = carried.intersect(deps.all()).coalesce();
  std::string text = "the dependence " + islText(direct.is_empty() ? carried : direct);
  if (carried.intersect(deps.groups).is_empty())
    return text;
  return text + ", a reduction (it would need a private accumulator)";
}

std::string islText(const isl::union_map &map) {
  std::ostringstream text;
  text << map;
  return text.str();
}

} // namespace nasc::compiler
