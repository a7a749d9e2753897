#include "polyhedral/ParallelLoops.h"

#include "polyhedral/Legality.h"

#include <algorithm>

namespace nasc::poly {

bool isDegenerate(const isl::schedule_node_band &band, int member) {
  isl::union_pw_aff values = band.partial_schedule().at(member);
  isl::union_set domain = isl::manage(isl_schedule_node_get_domain(band.get()));
  isl::union_set range =
      isl::manage(isl_union_map_from_union_pw_aff(values.copy())).intersect_domain(domain).range();
  if (range.is_empty())
    return true;
  isl_set *set = isl_set_from_union_set(range.release());
  isl_bool single = isl_set_is_singleton(set);
  isl_set_free(set);
  return single == isl_bool_true;
}

namespace {

/// Marks the subtree at `node`; returns the node at the same tree position.
isl::schedule_node markSubtree(const Scop &scop, const Dependences &deps, isl::schedule_node node) {
  if (isl_schedule_node_get_type(node.get()) == isl_schedule_node_band) {
    auto band = node.as<isl::schedule_node_band>();
    int member = outermostParallelMember(scop, deps, band);
    if (member == 0)
      return node.insert_mark(kParallelMark);
    if (member > 0)
      return band.split(member).child(0).insert_mark(kParallelMark).parent();
  }
  for (int i = 0; i < static_cast<int>(node.n_children()); ++i)
    node = markSubtree(scop, deps, node.child(i)).parent();
  return node;
}

} // namespace

std::string vectorMarkName(int width) {
  std::string name = kVectorMark;
  return width == 0 ? name : name + ":" + std::to_string(width);
}

std::optional<int> vectorMarkWidth(const std::string &markName) {
  std::string prefix = std::string(kVectorMark) + ":";
  if (markName == kVectorMark)
    return 0;
  if (markName.size() <= prefix.size() || markName.size() > prefix.size() + 6 ||
      markName.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  std::string digits = markName.substr(prefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  int width = std::stoi(digits);
  return width > 0 ? std::optional<int>(width) : std::nullopt;
}

int outermostParallelMember(const Scop &scop, const Dependences &deps,
                            const isl::schedule_node_band &band) {
  for (int m = 0; m < static_cast<int>(band.n_member()); ++m)
    if (!isDegenerate(band, m) && isParallel(scop, deps, band, m))
      return m;
  return -1;
}

isl::schedule markParallelLoops(const Scop &scop, const Dependences &deps) {
  return markSubtree(scop, deps, scop.schedule.root()).schedule();
}

} // namespace nasc::poly
