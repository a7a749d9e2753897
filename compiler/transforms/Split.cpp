#include "compiler/transforms/Split.h"

#include "compiler/transforms/BandLookup.h"
#include "compiler/transforms/PrimitiveLegality.h"
#include "polyhedral/IslExtras.h"

namespace nasc::compiler {

namespace {

/// `partial` with member `member` replaced by floor(value / factor), value mod factor.
isl::multi_union_pw_aff stripMine(const isl::multi_union_pw_aff &partial, int member, int factor) {
  int members = static_cast<int>(partial.size());
  isl::union_pw_aff_list list(partial.ctx(), members + 1);
  for (int i = 0; i < members; ++i) {
    if (i != member) {
      list = list.add(partial.at(i));
      continue;
    }
    list = list.add(poly::floorDiv(partial.at(i), factor)).add(poly::modulo(partial.at(i), factor));
  }
  return isl::multi_union_pw_aff(poly::withOneMoreDim(partial.space()), list);
}

/// Whether no member of `band` runs a dependence backwards (isl's permutable flag).
bool isPermutable(const isl::schedule_node_band &band, const poly::Dependences &deps) {
  for (int i = 0; i < static_cast<int>(band.n_member()); ++i)
    if (!poly::reversedAtMember(deps, band, i).is_empty())
      return false;
  return true;
}

/// `band` replaced by the strip-mined band, with its flags.
isl::schedule replaceBand(const isl::schedule_node_band &band, const poly::Dependences &deps,
                          int member, int factor) {
  isl::multi_union_pw_aff mined = stripMine(band.partial_schedule(), member, factor);
  isl::schedule_node child = poly::deleteNode(band);
  auto result = child.insert_partial_schedule(mined).as<isl::schedule_node_band>();
  result = result.set_permutable(band.permutable() && isPermutable(result, deps));
  int members = static_cast<int>(band.n_member());
  for (int i = 0, j = 0; i < members; ++i, ++j) {
    result = poly::copyMemberFlags(result, j, band, i);
    if (i == member)
      result = poly::copyMemberFlags(result, ++j, band, i);
  }
  return result.schedule();
}

} // namespace

isl::schedule split(const poly::Scop &scop, const poly::Dependences &deps,
                    const std::string &statement, int member, int factor, int band) {
  std::string request = "split of statement '" + statement + "' member " + std::to_string(member) +
                        " by " + std::to_string(factor);
  if (factor < 1)
    throw InvalidFactor(request + ": the factor must be at least 1");
  isl::schedule_node_band node = statementBand(scop, statement, band, "split");
  int members = static_cast<int>(node.n_member());
  if (member < 0 || member >= members)
    throw MemberOutOfRange(request + ": the band has " + std::to_string(members) +
                           " members (0 .. " + std::to_string(members - 1) + ")");
  isl::schedule schedule = replaceBand(node, deps, member, factor);
  if (!poly::isValidSchedule(scop, deps, schedule))
    throw IllegalTransformation(request + " would break the dependence " +
                                islText(poly::brokenDependences(deps, schedule)));
  return schedule;
}

} // namespace nasc::compiler
