#include "compiler/transforms/Unroll.h"

#include "compiler/transforms/BandLookup.h"
#include "compiler/transforms/Split.h"
#include "polyhedral/IslExtras.h"

namespace nasc::compiler {

namespace {

/// Whether the values of band member `member` on the band's domain span at most `factor`
/// integers.
bool fitsInFactor(const isl::schedule_node_band &band, int member, int factor) {
  isl::union_pw_aff values = band.partial_schedule().at(member);
  isl::union_set range = poly::valueMap(values).intersect_domain(poly::nodeDomain(band)).range();
  if (range.is_empty())
    return true;
  isl::set set = range.as_set();
  isl::val extent = set.dim_max_val(0).sub(set.dim_min_val(0)).add(isl::val::one(set.ctx()));
  return extent.is_int() && extent.le(isl::val(set.ctx(), factor));
}

isl::schedule withUnrolledMember(const isl::schedule_node_band &band, int member) {
  return band.member_set_ast_loop_unroll(member).schedule();
}

} // namespace

isl::schedule unroll(const poly::Scop &scop, const poly::Dependences &deps,
                     const std::string &statement, int member, int factor, int band) {
  std::string request = "unroll of statement '" + statement + "' member " + std::to_string(member) +
                        " by " + std::to_string(factor);
  if (factor < 2)
    throw InvalidFactor(request + ": the factor must be at least 2");
  isl::schedule_node_band node = statementBand(scop, statement, band, "unroll");
  int members = static_cast<int>(node.n_member());
  if (member < 0 || member >= members)
    throw MemberOutOfRange(request + ": the band has " + std::to_string(members) +
                           " members (0 .. " + std::to_string(members - 1) + ")");
  if (fitsInFactor(node, member, factor))
    return withUnrolledMember(node, member);
  poly::Scop mined = scop;
  mined.schedule = split(scop, deps, statement, member, factor, band);
  return withUnrolledMember(statementBand(mined, statement, band, "unroll"), member + 1);
}

} // namespace nasc::compiler
