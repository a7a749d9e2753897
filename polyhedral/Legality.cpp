#include "polyhedral/Legality.h"

#include "ir/Error.h"

namespace nasc::poly {

namespace {

/// The dependences a valid schedule keeps in order: the non-reduction ones, extended through
/// the reduction groups they enter or leave.
isl::union_map orderedDependences(const Dependences &deps) {
  return deps.others.unite(deps.others.apply_range(deps.groups))
      .unite(deps.groups.apply_range(deps.others));
}

/// { x -> y : f(x) = f(y) } for a schedule map `f`.
isl::union_map sameValue(const isl::union_map &f) { return f.apply_range(f.reverse()); }

isl::union_map memberMap(const isl::schedule_node_band &band, int member) {
  isl::union_pw_aff value = band.partial_schedule().at(member);
  return isl::manage(isl_union_map_from_union_pw_aff(value.release()));
}

isl::union_set nodeDomain(const isl::schedule_node &node) {
  return isl::manage(isl_schedule_node_get_domain(node.get()));
}

/// `node` as a band with member `member`; throws nasc::Error otherwise.
isl::schedule_node_band checkedBand(const isl::schedule_node &node, int member) {
  if (isl_schedule_node_get_type(node.get()) != isl_schedule_node_band)
    throw Error("legality: the schedule node is not a band");
  auto band = node.as<isl::schedule_node_band>();
  if (member < 0 || static_cast<unsigned>(member) >= band.n_member())
    throw Error("legality: band member " + std::to_string(member) + " out of range [0, " +
                std::to_string(band.n_member()) + ")");
  return band;
}

/// `relation` restricted to pairs inside `band`'s domain with equal prefix schedule values.
isl::union_map insideBand(const isl::union_map &relation, const isl::schedule_node_band &band) {
  isl::union_set domain = nodeDomain(band);
  return relation.intersect_domain(domain).intersect_range(domain).intersect(
      sameValue(band.prefix_schedule_union_map()));
}

} // namespace

isl::union_map brokenDependences(const Dependences &deps, const isl::schedule &schedule) {
  isl::union_map map = schedule.get_map();
  isl::union_map notAfter = isl::manage(isl_union_map_lex_ge_union_map(map.copy(), map.copy()));
  return orderedDependences(deps).intersect(notAfter).coalesce();
}

bool isValidSchedule(const Scop &, const Dependences &deps, const isl::schedule &schedule) {
  return brokenDependences(deps, schedule).is_empty();
}

isl::union_map reversedAtMember(const Dependences &deps, const isl::schedule_node_band &band,
                                int member) {
  isl::union_map value = memberMap(checkedBand(band, member), member);
  isl::union_map backwards =
      isl::manage(isl_union_map_lex_gt_union_map(value.copy(), value.copy()));
  return insideBand(orderedDependences(deps), band).intersect(backwards).coalesce();
}

isl::union_map carriedAtMember(const Dependences &deps, const isl::schedule_node &node,
                               int member) {
  isl::schedule_node_band band = checkedBand(node, member);
  isl::union_map pairs = insideBand(deps.others.unite(deps.groups), band);
  for (int d = 0; d < member; ++d)
    pairs = pairs.intersect(sameValue(memberMap(band, d)));
  return pairs.subtract(sameValue(memberMap(band, member))).coalesce();
}

bool isParallel(const Scop &, const Dependences &deps, const isl::schedule_node &band,
                int member) {
  return carriedAtMember(deps, band, member).is_empty();
}

} // namespace nasc::poly
