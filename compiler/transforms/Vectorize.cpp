#include "compiler/transforms/Vectorize.h"

#include "compiler/transforms/BandLookup.h"
#include "compiler/transforms/PrimitiveLegality.h"
#include "polyhedral/IslExtras.h"
#include "polyhedral/ParallelLoops.h"

namespace nasc::compiler {

namespace {

bool isValidWidth(int width) {
  return width == 0 || (width >= 2 && width <= 64 && (width & (width - 1)) == 0);
}

bool hasBandBelow(const isl::schedule_node &node) {
  for (int i = 0; i < static_cast<int>(node.n_children()); ++i)
    if (node.child(i).isa<isl::schedule_node_band>() || hasBandBelow(node.child(i)))
      return true;
  return false;
}

/// `band` split before `member` if needed, with a vector mark above the band starting there
/// (its id allocated by name: isl's string constructor would parse "vector:8" as "vector").
isl::schedule markMember(isl::schedule_node_band band, int member, int width) {
  isl::schedule_node node = band;
  if (member > 0)
    node = band.split(member).child(0);
  std::string name = poly::vectorMarkName(width);
  return node.insert_mark(poly::namedId(node.ctx(), name)).schedule();
}

} // namespace

isl::schedule vectorize(const poly::Scop &scop, const poly::Dependences &deps,
                        const std::string &statement, int member, int width, int band) {
  std::string request = "vectorize of statement '" + statement + "' member " +
                        std::to_string(member) + " with width " + std::to_string(width);
  if (!isValidWidth(width))
    throw InvalidFactor(request + ": the width must be 0 (LLVM's choice) or a power of two in "
                                  "2 .. 64");
  isl::schedule_node_band node = statementBand(scop, statement, band, "vectorize");
  int members = static_cast<int>(node.n_member());
  if (member < 0 || member >= members)
    throw MemberOutOfRange(request + ": the band has " + std::to_string(members) +
                           " members (0 .. " + std::to_string(members - 1) + ")");
  if (member != members - 1 || hasBandBelow(node))
    throw NotInnermost(request + ": only the statement's innermost loop can be vectorized");
  if (!poly::isParallel(scop, deps, node, member))
    throw CarriedDependence(request + ": the loop carries " + carriedText(deps, node, member));
  return markMember(node, member, width);
}

} // namespace nasc::compiler
