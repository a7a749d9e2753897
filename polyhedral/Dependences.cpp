#include "polyhedral/Dependences.h"

#include "ir/Error.h"

namespace nasc::poly {

namespace {

bool loadsTensor(const ir::Expr &e, int tensor) {
  if (e.op == ir::Expr::Op::Load && e.access.tensor == tensor)
    return true;
  for (const auto &a : e.args)
    if (loadsTensor(a, tensor))
      return true;
  return false;
}

bool indexUsesReductionDim(const ir::Statement &st) {
  for (const auto &index : st.write.index)
    for (size_t d = 0; d < index.coeffs.size() && d < st.reduction.size(); ++d)
      if (st.reduction[d] && index.coeffs[d] != 0)
        return true;
  return false;
}

/// Whether `st` is a reduction statement in the sense of Dependences::reductions.
bool isReduction(const ir::Statement &st) {
  bool anyReductionDim = false;
  for (bool r : st.reduction)
    anyReductionDim = anyReductionDim || r;
  return st.update != ir::Update::Assign && anyReductionDim && !indexUsesReductionDim(st) &&
         !loadsTensor(st.value, st.write.tensor);
}

/// The statement's domain in `scop` (one set named st.name).
isl::set statementDomain(const Scop &scop, const ir::Statement &st) {
  isl::set found;
  scop.domain.foreach_set([&](isl::set s) {
    const char *name = isl_set_get_tuple_name(s.get());
    if (name && st.name == name)
      found = s;
  });
  if (found.is_null())
    throw Error("dependences: statement " + st.name + " has no domain in the Scop");
  return found;
}

/// { S[x] -> S[y] : x and y in S's domain agree on every non-reduction dimension }.
isl::map reductionGroup(const isl::set &domain, const ir::Statement &st) {
  isl_map *group = isl_map_from_domain_and_range(domain.copy(), domain.copy());
  for (size_t d = 0; d < st.depth(); ++d)
    if (d >= st.reduction.size() || !st.reduction[d])
      group = isl_map_equate(group, isl_dim_in, static_cast<unsigned>(d), isl_dim_out,
                             static_cast<unsigned>(d));
  return isl::manage(group);
}

/// Reduction groups of all reduction statements of `kernel`.
isl::union_map reductionGroups(const Scop &scop, const ir::Kernel &kernel) {
  isl::union_map groups = isl::union_map::empty(scop.domain.ctx());
  for (const auto &st : kernel.statements)
    if (isReduction(st))
      groups = groups.unite(isl::union_map(reductionGroup(statementDomain(scop, st), st)));
  return groups;
}

isl::union_map mayDependence(const isl::union_access_info &info) {
  return info.compute_flow().get_may_dependence();
}

isl::union_map fromUnionPwAff(const isl::union_pw_aff &upa) {
  return isl::manage(isl_union_map_from_union_pw_aff(upa.copy()));
}

isl::union_set nodeDomain(const isl::schedule_node &node) {
  return isl::manage(isl_schedule_node_get_domain(node.get()));
}

isl::union_map flatRangeProduct(const isl::union_map &a, const isl::union_map &b) {
  return isl::manage(isl_union_map_flat_range_product(a.copy(), b.copy()));
}

/// Pairs of instances of `schedule`'s domain with equal schedule values.
isl::union_map sameValue(const isl::union_map &schedule) {
  return schedule.apply_range(schedule.reverse());
}

/// Dependences into (out of) any instance of a reduction group extended to all its instances,
/// so that reordering the group's instances among themselves keeps them.
isl::union_map extendToReductionGroups(const isl::union_map &deps, const isl::union_map &groups) {
  return deps.unite(deps.apply_range(groups)).unite(groups.apply_range(deps));
}

} // namespace

Dependences computeDependences(const Scop &scop, const ir::Kernel &kernel) {
  isl::union_access_info reads(scop.reads), writes(scop.writes);
  Dependences deps;
  deps.flow = mayDependence(reads.set_must_source(scop.writes).set_schedule(scop.schedule));
  deps.anti = mayDependence(
      writes.set_may_source(scop.reads).set_kill(scop.writes).set_schedule(scop.schedule));
  deps.output = mayDependence(writes.set_must_source(scop.writes).set_schedule(scop.schedule));
  isl::union_map all = deps.flow.unite(deps.anti).unite(deps.output);
  deps.groups = reductionGroups(scop, kernel);
  deps.reductions = all.intersect(deps.groups);
  deps.others = all.subtract(deps.reductions);
  return deps;
}

bool isParallel(const Scop &, const Dependences &deps, const isl::schedule_node &band,
                int member) {
  if (isl_schedule_node_get_type(band.get()) != isl_schedule_node_band)
    throw Error("isParallel: the schedule node is not a band");
  auto node = band.as<isl::schedule_node_band>();
  if (member < 0 || static_cast<unsigned>(member) >= node.n_member())
    throw Error("isParallel: band member " + std::to_string(member) + " out of range [0, " +
                std::to_string(node.n_member()) + ")");
  isl::union_set domain = nodeDomain(band);
  isl::multi_union_pw_aff partial = node.partial_schedule();
  isl::union_map outer = band.prefix_schedule_union_map();
  for (int d = 0; d < member; ++d)
    outer = flatRangeProduct(outer, fromUnionPwAff(partial.at(d)).intersect_domain(domain));
  isl::union_map at = fromUnionPwAff(partial.at(member)).intersect_domain(domain);
  isl::union_map inside = deps.all().intersect_domain(domain).intersect_range(domain);
  return inside.intersect(sameValue(outer)).is_subset(sameValue(at));
}

bool isValidSchedule(const Scop &, const Dependences &deps, const isl::schedule &schedule) {
  isl::union_map map = schedule.get_map();
  isl::union_map notAfter =
      isl::manage(isl_union_map_lex_ge_union_map(map.copy(), map.copy()));
  return extendToReductionGroups(deps.others, deps.groups).intersect(notAfter).is_empty();
}

} // namespace nasc::poly
