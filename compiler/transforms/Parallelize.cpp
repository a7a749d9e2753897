#include "compiler/transforms/Parallelize.h"

#include "compiler/transforms/BandLookup.h"
#include "compiler/transforms/PrimitiveLegality.h"
#include "polyhedral/ParallelLoops.h"

namespace nasc::compiler {

namespace {

bool hasParallelAncestor(isl::schedule_node node) {
  while (node.has_parent()) {
    node = node.parent();
    if (poly::isParallelMark(node))
      return true;
  }
  return false;
}

bool hasParallelDescendant(const isl::schedule_node &node) {
  for (int i = 0; i < static_cast<int>(node.n_children()); ++i)
    if (poly::isParallelMark(node.child(i)) || hasParallelDescendant(node.child(i)))
      return true;
  return false;
}

/// `band` split before and after `member` if needed, with a parallel mark above the band of
/// that member alone.
isl::schedule markMember(isl::schedule_node_band band, int member) {
  if (member > 0)
    band = band.split(member).child(0).as<isl::schedule_node_band>();
  if (band.n_member() > 1)
    band = band.split(1);
  return band.insert_mark(poly::kParallelMark).schedule();
}

} // namespace

isl::schedule parallelize(const poly::Scop &scop, const poly::Dependences &deps,
                          const std::string &statement, int member, int band) {
  std::string request =
      "parallelize of statement '" + statement + "' member " + std::to_string(member);
  isl::schedule_node_band node = statementBand(scop, statement, band, "parallelize", true);
  int members = static_cast<int>(node.n_member());
  if (member < 0 || member >= members)
    throw MemberOutOfRange(request + ": the band has " + std::to_string(members) +
                           " members (0 .. " + std::to_string(members - 1) + ")");
  if (poly::isDegenerate(node, member))
    throw SingleIteration(request + ": the loop has at most one iteration");
  if (hasParallelAncestor(node) || hasParallelDescendant(node))
    throw NestedParallelism(request + ": the band is nested with a loop already marked parallel");
  if (!poly::isParallel(scop, deps, node, member))
    throw CarriedDependence(request + ": the loop carries " + carriedText(deps, node, member));
  return markMember(node, member);
}

} // namespace nasc::compiler
