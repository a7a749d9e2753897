#include "compiler/transforms/BandLookup.h"

#include "compiler/transforms/PrimitiveErrors.h"
#include "compiler/transforms/TransformErrors.h"
#include "polyhedral/IslExtras.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace nasc::compiler {

namespace {

std::vector<std::string> statementNames(const isl::union_set &domain) {
  std::vector<std::string> names;
  domain.foreach_set([&](isl::set s) { names.push_back(poly::tupleName(s)); });
  return names;
}

bool contains(const std::vector<std::string> &names, const std::string &name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

/// The outermost band at or below `node` whose domain holds instances of `statement`.
std::optional<isl::schedule_node> outermostBand(const isl::schedule_node &node,
                                                const std::string &statement) {
  if (!contains(statementsUnder(node), statement))
    return std::nullopt;
  if (node.isa<isl::schedule_node_band>())
    return node;
  for (int i = 0; i < static_cast<int>(node.n_children()); ++i)
    if (auto band = outermostBand(node.child(i), statement))
      return band;
  return std::nullopt;
}

/// The band at `depth` below the root's child, counting only bands holding `statement`.
std::optional<isl::schedule_node> bandAtDepth(const isl::schedule &schedule,
                                              const std::string &statement, int depth) {
  std::optional<isl::schedule_node> band = outermostBand(schedule.root().child(0), statement);
  for (int d = 0; band && d < depth; ++d)
    band = band->n_children() > 0 ? outermostBand(band->child(0), statement) : std::nullopt;
  return band;
}

} // namespace

isl::schedule_node_band statementBand(const poly::Scop &scop, const std::string &statement,
                                      int depth, const std::string &primitive, bool allowShared) {
  if (!contains(statementNames(scop.domain), statement))
    throw UnknownStatement(primitive + ": no statement named '" + statement + "' in the Scop");
  std::optional<isl::schedule_node> band =
      depth < 0 ? std::nullopt : bandAtDepth(scop.schedule, statement, depth);
  if (!band)
    throw NoSuchBand(primitive + ": statement '" + statement + "' has no loop band at depth " +
                     std::to_string(depth));
  if (!allowShared && statementsUnder(*band).size() != 1)
    throw UnknownStatement(primitive + ": the band of statement '" + statement +
                           "' also schedules other statements");
  return band->as<isl::schedule_node_band>();
}

std::vector<std::string> statementsUnder(const isl::schedule_node &node) {
  return statementNames(poly::nodeDomain(node));
}

} // namespace nasc::compiler
