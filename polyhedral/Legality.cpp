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

/// The pairs of `relation` on which `f` is equal; `f` zero-dimensional keeps every pair.
/// (isl compares f on both ends of each pair; no relation between all instances is built.)
isl::union_map equalAt(const isl::union_map &relation, const isl::multi_union_pw_aff &f) {
  if (f.size() == 0)
    return relation;
  return isl::manage(isl_union_map_eq_at_multi_union_pw_aff(relation.copy(), f.copy()));
}

isl::union_map greaterOrEqualAt(const isl::union_map &relation, const isl::multi_union_pw_aff &f) {
  return isl::manage(isl_union_map_lex_ge_at_multi_union_pw_aff(relation.copy(), f.copy()));
}

isl::union_map greaterAt(const isl::union_map &relation, const isl::multi_union_pw_aff &f) {
  return isl::manage(isl_union_map_lex_gt_at_multi_union_pw_aff(relation.copy(), f.copy()));
}

/// The flat schedule of `schedule` as one function of every statement (isl pads the ranges of
/// schedule.get_map() to one dimension).
isl::multi_union_pw_aff flatSchedule(const isl::schedule &schedule) {
  return isl::manage(isl_multi_union_pw_aff_from_union_map(schedule.get_map().release()));
}

isl::multi_union_pw_aff memberFunction(const isl::schedule_node_band &band, int member) {
  return isl::multi_union_pw_aff(band.partial_schedule().at(member));
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
  return equalAt(relation.intersect_domain(domain).intersect_range(domain),
                 band.prefix_schedule_multi_union_pw_aff());
}

} // namespace

isl::union_map brokenDependences(const Dependences &deps, const isl::schedule &schedule) {
  return greaterOrEqualAt(orderedDependences(deps), flatSchedule(schedule)).coalesce();
}

bool isValidSchedule(const Scop &, const Dependences &deps, const isl::schedule &schedule) {
  return brokenDependences(deps, schedule).is_empty();
}

isl::union_map reversedAtMember(const Dependences &deps, const isl::schedule_node_band &band,
                                int member) {
  return greaterAt(insideBand(orderedDependences(deps), checkedBand(band, member)),
                   memberFunction(band, member))
      .coalesce();
}

isl::union_map carriedAtMember(const Dependences &deps, const isl::schedule_node &node,
                               int member) {
  isl::schedule_node_band band = checkedBand(node, member);
  isl::union_map pairs = insideBand(deps.others.unite(deps.groups), band);
  for (int d = 0; d < member; ++d)
    pairs = equalAt(pairs, memberFunction(band, d));
  return pairs.subtract(equalAt(pairs, memberFunction(band, member))).coalesce();
}

bool isParallel(const Scop &, const Dependences &deps, const isl::schedule_node &band, int member) {
  return carriedAtMember(deps, band, member).is_empty();
}

} // namespace nasc::poly
