#include "compiler/transforms/ScheduleTreeCopy.h"

#include "polyhedral/IslExtras.h"

#include <string>

namespace nasc::compiler {

namespace {

std::string nodeTypeName(const isl::schedule_node &node) {
  if (node.isa<isl::schedule_node_context>())
    return "context";
  if (node.isa<isl::schedule_node_domain>())
    return "domain";
  if (node.isa<isl::schedule_node_expansion>())
    return "expansion";
  if (node.isa<isl::schedule_node_extension>())
    return "extension";
  if (node.isa<isl::schedule_node_filter>())
    return "filter outside a sequence";
  if (node.isa<isl::schedule_node_guard>())
    return "guard";
  if (node.isa<isl::schedule_node_set>())
    return "set";
  return "unknown";
}

bool hasIsolateOption(const isl::schedule_node_band &band) {
  return !band.ast_isolate_option().is_empty();
}

isl::schedule copyBand(const isl::schedule_node_band &band) {
  if (hasIsolateOption(band))
    throw UnsupportedScheduleNode(
        "schedule tree copy: cannot move a band with an isolate option (anchored to the outer "
        "schedule)");
  isl::schedule below = subtreeSchedule(band.child(0));
  auto copy = below.root()
                  .child(0)
                  .insert_partial_schedule(band.partial_schedule())
                  .as<isl::schedule_node_band>();
  copy = copy.set_permutable(band.permutable());
  for (int i = 0; i < static_cast<int>(band.n_member()); ++i)
    copy = copy.member_set_coincident(i, band.member_get_coincident(i));
  return copy.set_ast_build_options(band.ast_build_options()).schedule();
}

isl::schedule copyMark(const isl::schedule_node &mark) {
  return subtreeSchedule(mark.child(0)).root().child(0).insert_mark(poly::markId(mark)).schedule();
}

isl::schedule copySequence(const isl::schedule_node &node) {
  isl::schedule result = subtreeSchedule(node.child(0).child(0));
  for (int i = 1; i < static_cast<int>(node.n_children()); ++i)
    result = poly::sequence(result, subtreeSchedule(node.child(i).child(0)));
  return result;
}

} // namespace

isl::schedule subtreeSchedule(const isl::schedule_node &node) {
  if (node.isa<isl::schedule_node_leaf>())
    return isl::schedule::from_domain(poly::nodeDomain(node));
  if (node.isa<isl::schedule_node_band>())
    return copyBand(node.as<isl::schedule_node_band>());
  if (node.isa<isl::schedule_node_mark>())
    return copyMark(node);
  if (node.isa<isl::schedule_node_sequence>())
    return copySequence(node);
  throw UnsupportedScheduleNode("schedule tree copy: cannot rebuild a " + nodeTypeName(node) +
                                " node");
}

} // namespace nasc::compiler
