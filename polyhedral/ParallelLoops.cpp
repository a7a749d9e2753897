#include "polyhedral/ParallelLoops.h"

#include "ir/Error.h"
#include "polyhedral/Legality.h"

#include <algorithm>

namespace nasc::poly {

bool isDegenerate(const isl::schedule_node_band &band, int member) {
  isl::union_set domain = isl::manage(isl_schedule_node_get_domain(band.get()));
  isl::multi_union_pw_aff partial = band.partial_schedule();
  isl::union_map outer = band.prefix_schedule_union_map().intersect_domain(domain);
  for (int m = 0; m < member; ++m)
    outer = isl::manage(isl_union_map_flat_range_product(
        outer.release(), isl_union_map_from_union_pw_aff(partial.at(m).release())));
  isl::union_map value = isl::manage(isl_union_map_from_union_pw_aff(partial.at(member).release()))
                             .intersect_domain(domain);
  return outer.reverse().apply_range(value).is_single_valued();
}

bool isParallelMark(const isl::schedule_node &node) {
  return isl_schedule_node_get_type(node.get()) == isl_schedule_node_mark &&
         isl::manage(isl_schedule_node_mark_get_id(node.get())).name() == kParallelMark;
}

namespace {

bool isParallelMarkOverDegenerateLoop(const isl::schedule_node &node) {
  if (!isParallelMark(node))
    return false;
  isl::schedule_node child = node.child(0);
  return child.isa<isl::schedule_node_band>() &&
         isDegenerate(child.as<isl::schedule_node_band>(), 0);
}

bool hasParallelMarkOverDegenerateLoop(const isl::schedule_node &node) {
  if (isParallelMarkOverDegenerateLoop(node))
    return true;
  for (int i = 0; i < static_cast<int>(node.n_children()); ++i)
    if (hasParallelMarkOverDegenerateLoop(node.child(i)))
      return true;
  return false;
}

} // namespace

bool hasParallelMarkOverDegenerateLoop(const isl::schedule &schedule) {
  return hasParallelMarkOverDegenerateLoop(schedule.root());
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

void requireMarkedLoops(const isl::schedule &schedule) {
  if (hasParallelMarkOverDegenerateLoop(schedule))
    throw Error("internal error: a parallel mark is over a loop of one iteration, which isl's "
                "AST drops; the mark would apply to the loop below it");
}

isl::schedule markParallelLoops(const Scop &scop, const Dependences &deps) {
  return markSubtree(scop, deps, scop.schedule.root()).schedule();
}

} // namespace nasc::poly
