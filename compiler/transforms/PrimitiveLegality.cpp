#include "compiler/transforms/PrimitiveLegality.h"

#include <sstream>

namespace nasc::compiler {

namespace {

/// The dependences poly::isValidSchedule requires kept: the non-reduction ones, extended through
/// the reduction groups they enter or leave.
isl::union_map orderedDependences(const poly::Dependences &deps) {
  return deps.others.unite(deps.others.apply_range(deps.groups))
      .unite(deps.groups.apply_range(deps.others));
}

/// { x -> y : f(x) = f(y) } for a schedule map `f`.
isl::union_map sameValue(const isl::union_map &f) { return f.apply_range(f.reverse()); }

isl::union_map memberMap(const isl::schedule_node_band &band, int member) {
  isl::union_pw_aff value = band.partial_schedule().at(member);
  return isl::manage(isl_union_map_from_union_pw_aff(value.release()));
}

} // namespace

isl::union_map brokenDependences(const poly::Dependences &deps, const isl::schedule &schedule) {
  isl::union_map map = schedule.get_map();
  isl::union_map notAfter = isl::manage(isl_union_map_lex_ge_union_map(map.copy(), map.copy()));
  return orderedDependences(deps).intersect(notAfter).coalesce();
}

isl::union_map reversedAtMember(const poly::Dependences &deps, const isl::schedule_node_band &band,
                                int member) {
  isl::union_set domain = isl::manage(isl_schedule_node_get_domain(band.get()));
  isl::union_map inBand =
      orderedDependences(deps).intersect_domain(domain).intersect_range(domain).intersect(
          sameValue(band.prefix_schedule_union_map()));
  isl::union_map value = memberMap(band, member);
  isl::union_map backwards =
      isl::manage(isl_union_map_lex_gt_union_map(value.copy(), value.copy()));
  return inBand.intersect(backwards).coalesce();
}

isl::union_map carriedAtMember(const poly::Dependences &deps, const isl::schedule_node_band &band,
                               int member) {
  isl::union_set domain = isl::manage(isl_schedule_node_get_domain(band.get()));
  isl::union_map inBand = deps.all().intersect_domain(domain).intersect_range(domain).intersect(
      sameValue(band.prefix_schedule_union_map()));
  for (int d = 0; d < member; ++d)
    inBand = inBand.intersect(sameValue(memberMap(band, d)));
  return inBand.subtract(sameValue(memberMap(band, member))).coalesce();
}

std::string carriedText(const poly::Dependences &deps, const isl::schedule_node_band &band,
                        int member) {
  isl::union_map carried = carriedAtMember(deps, band, member);
  std::string text = "the dependence " + islText(carried);
  if (carried.intersect(deps.reductions).is_empty())
    return text;
  return text + ", a reduction (it would need a private accumulator)";
}

std::string islText(const isl::union_map &map) {
  std::ostringstream text;
  text << map;
  return text.str();
}

} // namespace nasc::compiler
