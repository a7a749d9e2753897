#include "compiler/transforms/Fuse.h"

#include "compiler/transforms/BandLookup.h"
#include "compiler/transforms/PrimitiveLegality.h"
#include "compiler/transforms/ScheduleTreeCopy.h"
#include "polyhedral/IslExtras.h"

#include <algorithm>

namespace nasc::compiler {

namespace {

/// One child of the schedule's top-level sequence: the node below its filter (the tree's top
/// node if there is no sequence) and the statements it runs.
struct Child {
  isl::schedule_node node;
  std::vector<std::string> statements;
};

std::vector<std::string> sortedStatementsUnder(const isl::schedule_node &node) {
  std::vector<std::string> names = statementsUnder(node);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<Child> topLevelChildren(const isl::schedule &schedule) {
  isl::schedule_node top = schedule.root().child(0);
  std::vector<isl::schedule_node> nodes;
  if (top.isa<isl::schedule_node_sequence>())
    for (int i = 0; i < static_cast<int>(top.n_children()); ++i)
      nodes.push_back(top.child(i).child(0));
  else
    nodes.push_back(top);
  std::vector<Child> children;
  for (const isl::schedule_node &node : nodes)
    children.push_back({node, sortedStatementsUnder(node)});
  return children;
}

bool contains(const std::vector<std::string> &names, const std::string &name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

/// "statement 'S0'" or "statements 'S0', 'S1'".
std::string statementsText(const std::vector<std::string> &names) {
  std::string text = names.size() == 1 ? "statement " : "statements ";
  for (size_t i = 0; i < names.size(); ++i)
    text += (i ? ", '" : "'") + names[i] + "'";
  return text;
}

/// The index of the child running `statement`; throws UnknownStatement if none does.
int childOf(const std::vector<Child> &children, const std::string &statement) {
  for (size_t i = 0; i < children.size(); ++i)
    if (contains(children[i].statements, statement))
      return static_cast<int>(i);
  throw UnknownStatement("fuse: no statement named '" + statement + "' in the Scop");
}

/// The first and last child running `statements`, checked to be whole consecutive children
/// listed in sequence order.
std::pair<int, int> childRange(const std::vector<Child> &children,
                               const std::vector<std::string> &statements,
                               const std::string &request) {
  std::vector<int> indexes;
  for (size_t i = 0; i < statements.size(); ++i) {
    int child = childOf(children, statements[i]);
    if (std::count(statements.begin(), statements.end(), statements[i]) > 1)
      throw InvalidFusion(request + ": statement '" + statements[i] + "' is named twice");
    if (i > 0 && child != indexes.back() && child != indexes.back() + 1)
      throw InvalidFusion(request + ": statement '" + statements[i] + "' does not follow '" +
                          statements[i - 1] + "' in the top-level sequence");
    indexes.push_back(child);
  }
  for (int c = indexes.front(); c <= indexes.back(); ++c)
    for (const std::string &other : children[c].statements)
      if (!contains(statements, other))
        throw InvalidFusion(request + ": statement '" + other + "' shares a loop nest with " +
                            statementsText(children[c].statements) + " but is not named");
  if (indexes.front() == indexes.back())
    throw InvalidFusion(request + ": the statements already share one loop nest");
  return {indexes.front(), indexes.back()};
}

/// The outer band of `child`, checked to have at least `depth` members.
isl::schedule_node_band outerBand(const Child &child, int depth, const std::string &request) {
  if (!child.node.isa<isl::schedule_node_band>())
    throw NoSuchBand(request + ": the loop nest of " + statementsText(child.statements) +
                     " does not start with a loop band");
  auto band = child.node.as<isl::schedule_node_band>();
  if (static_cast<int>(band.n_member()) < depth)
    throw MemberOutOfRange(request + ": the outer band of " + statementsText(child.statements) +
                           " has only " + std::to_string(band.n_member()) + " members");
  return band;
}

/// The band of `depth` members whose member i is the union of member i of each of `bands`.
isl::multi_union_pw_aff sharedMembers(const std::vector<isl::schedule_node_band> &bands,
                                      int depth) {
  isl::ctx ctx = bands.front().ctx();
  isl::union_pw_aff_list list(ctx, depth);
  for (int i = 0; i < depth; ++i) {
    isl::union_pw_aff member = bands.front().partial_schedule().at(i);
    for (size_t b = 1; b < bands.size(); ++b)
      member = member.union_add(bands[b].partial_schedule().at(i));
    list = list.add(member);
  }
  return isl::multi_union_pw_aff(poly::unnamedSetSpace(ctx, static_cast<unsigned>(depth)), list);
}

/// `band`'s subtree without its first `depth` members.
isl::schedule rest(isl::schedule_node_band band, int depth) {
  if (depth < static_cast<int>(band.n_member()))
    band = band.split(depth);
  return subtreeSchedule(band.child(0));
}

/// Whether no member of `band` runs a dependence backwards (isl's permutable flag).
bool isPermutable(const isl::schedule_node_band &band, const poly::Dependences &deps) {
  for (int i = 0; i < static_cast<int>(band.n_member()); ++i)
    if (!poly::reversedAtMember(deps, band, i).is_empty())
      return false;
  return true;
}

/// The shared band of `bands`' first `depth` members over the sequence of their rests.
isl::schedule fusedChild(const std::vector<isl::schedule_node_band> &bands, int depth,
                         const poly::Dependences &deps) {
  isl::schedule inner = rest(bands.front(), depth);
  for (size_t b = 1; b < bands.size(); ++b)
    inner = poly::sequence(inner, rest(bands[b], depth));
  auto band = inner.root()
                  .child(0)
                  .insert_partial_schedule(sharedMembers(bands, depth))
                  .as<isl::schedule_node_band>();
  return band.set_permutable(isPermutable(band, deps)).schedule();
}

/// The children before `first`, `fused`, then the children after `last`, in one sequence.
isl::schedule regrouped(const std::vector<Child> &children, int first, int last,
                        const isl::schedule &fused) {
  isl::schedule result;
  auto append = [&](const isl::schedule &part) {
    result = result.is_null() ? part : poly::sequence(result, part);
  };
  for (int c = 0; c < first; ++c)
    append(subtreeSchedule(children[c].node));
  append(fused);
  for (int c = last + 1; c < static_cast<int>(children.size()); ++c)
    append(subtreeSchedule(children[c].node));
  return result;
}

} // namespace

isl::schedule fuse(const poly::Scop &scop, const poly::Dependences &deps,
                   const std::vector<std::string> &statements, int depth) {
  std::string request =
      "fuse of " + statementsText(statements) + " at depth " + std::to_string(depth);
  if (statements.size() < 2)
    throw InvalidFusion(request + ": needs at least two statements");
  if (depth < 1)
    throw MemberOutOfRange(request + ": the depth must be at least 1");
  std::vector<Child> children = topLevelChildren(scop.schedule);
  auto [first, last] = childRange(children, statements, request);
  std::vector<isl::schedule_node_band> bands;
  for (int c = first; c <= last; ++c)
    bands.push_back(outerBand(children[c], depth, request));
  isl::schedule schedule = regrouped(children, first, last, fusedChild(bands, depth, deps));
  if (!poly::isValidSchedule(scop, deps, schedule))
    throw IllegalTransformation(request + " would break the dependence " +
                                islText(poly::brokenDependences(deps, schedule)));
  return schedule;
}

} // namespace nasc::compiler
