#include "polyhedral/Dependences.h"

#include "ir/Error.h"

#include <algorithm>

namespace nasc::poly {

namespace {

bool loadsTensor(const ir::Expr &e, int tensor) {
  const std::vector<const ir::Access *> loads = ir::loadsOf(e);
  return std::any_of(loads.begin(), loads.end(),
                     [&](const ir::Access *a) { return a->tensor == tensor; });
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

} // namespace nasc::poly
