#include "compiler/transforms/Interchange.h"

#include <algorithm>
#include <optional>
#include <sstream>

namespace nasc::compiler {

namespace {

/// Names of the statements (set tuples) in `domain`.
std::vector<std::string> statementNames(const isl::union_set &domain) {
  std::vector<std::string> names;
  domain.foreach_set([&](isl::set s) {
    const char *name = isl_set_get_tuple_name(s.get());
    names.push_back(name ? name : "");
  });
  return names;
}

bool contains(const std::vector<std::string> &names, const std::string &name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

isl::union_set nodeDomain(const isl::schedule_node &node) {
  return isl::manage(isl_schedule_node_get_domain(node.get()));
}

/// The outermost band at or below `node` (not the root: no instance reaches the root domain
/// node) whose domain holds instances of `statement`, if any.
std::optional<isl::schedule_node> outermostBand(const isl::schedule_node &node,
                                                const std::string &statement) {
  if (!contains(statementNames(nodeDomain(node)), statement))
    return std::nullopt;
  if (node.isa<isl::schedule_node_band>())
    return node;
  for (int i = 0; i < static_cast<int>(node.n_children()); ++i)
    if (auto band = outermostBand(node.child(i), statement))
      return band;
  return std::nullopt;
}

std::string orderText(const std::vector<int> &order) {
  std::string text = "[";
  for (size_t i = 0; i < order.size(); ++i)
    text += (i ? ", " : "") + std::to_string(order[i]);
  return text + "]";
}

bool isPermutation(const std::vector<int> &order, unsigned members) {
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int>(i))
      return false;
  return sorted.size() == members;
}

/// The band of `statement` in `scop.schedule`, which must schedule that statement alone.
isl::schedule_node_band statementBand(const poly::Scop &scop, const std::string &statement) {
  if (!contains(statementNames(scop.domain), statement))
    throw UnknownStatement("interchange: no statement named '" + statement + "' in the Scop");
  std::optional<isl::schedule_node> band = outermostBand(scop.schedule.root().child(0), statement);
  if (!band)
    throw UnknownStatement("interchange: statement '" + statement + "' has no loop band");
  if (statementNames(nodeDomain(*band)).size() != 1)
    throw UnknownStatement("interchange: the band of statement '" + statement +
                           "' also schedules other statements");
  return band->as<isl::schedule_node_band>();
}

/// `band` replaced by a band whose member i is old member order[i], with its flags.
isl::schedule permuteMembers(const isl::schedule_node_band &band, const std::vector<int> &order) {
  isl::multi_union_pw_aff partial = band.partial_schedule();
  isl::multi_union_pw_aff permuted = partial;
  for (size_t i = 0; i < order.size(); ++i)
    permuted = permuted.set_at(static_cast<int>(i), partial.at(order[i]));
  isl::schedule_node child = isl::manage(isl_schedule_node_delete(band.copy()));
  auto result = child.insert_partial_schedule(permuted).as<isl::schedule_node_band>();
  result = result.set_permutable(band.permutable());
  for (size_t i = 0; i < order.size(); ++i)
    result =
        result.member_set_coincident(static_cast<int>(i), band.member_get_coincident(order[i]));
  return result.schedule();
}

/// The dependence instances of `deps` that `schedule` does not keep (source not before sink),
/// with the other dependences of a reduction extended to its whole group as
/// poly::isValidSchedule does.
isl::union_map brokenDependences(const poly::Dependences &deps, const isl::schedule &schedule) {
  isl::union_map map = schedule.get_map();
  isl::union_map notAfter = isl::manage(isl_union_map_lex_ge_union_map(map.copy(), map.copy()));
  isl::union_map kept = deps.others.unite(deps.others.apply_range(deps.groups))
                            .unite(deps.groups.apply_range(deps.others));
  return kept.intersect(notAfter).coalesce();
}

std::string toText(const isl::union_map &map) {
  std::ostringstream text;
  text << map;
  return text.str();
}

} // namespace

isl::schedule interchange(const poly::Scop &scop, const poly::Dependences &deps,
                          const std::string &statement, const std::vector<int> &order) {
  isl::schedule_node_band band = statementBand(scop, statement);
  if (!isPermutation(order, band.n_member()))
    throw InvalidPermutation("interchange of statement '" + statement + "': order " +
                             orderText(order) + " is not a permutation of its " +
                             std::to_string(band.n_member()) + " band members");
  isl::schedule schedule = permuteMembers(band, order);
  if (!poly::isValidSchedule(scop, deps, schedule))
    throw IllegalTransformation("interchange of statement '" + statement + "' to order " +
                                orderText(order) + " would break the dependence " +
                                toText(brokenDependences(deps, schedule)));
  return schedule;
}

} // namespace nasc::compiler
