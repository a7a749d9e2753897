// What isl/cpp.h of isl 0.25 lacks, as functions on its C++ types. The isl C API is called only
// in polyhedral/ (docs/architecture.md, "isl"); the schedule primitives (compiler/transforms)
// and the neural steps' isl forms (compiler/nas) use these.
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

namespace nasc::poly {

/// The tuple name of `set`'s space; "" when it has none.
std::string tupleName(const isl::set &set);

/// The name of the domain tuple of `map`; "" when it has none.
std::string domainTupleName(const isl::map &map);

/// The name of the range tuple of `m`; "" when it has none.
std::string rangeTupleName(const isl::multi_aff &m);

/// Index of the set dimension of `set` named `name`; -1 when there is none.
int dimIndex(const isl::set &set, const std::string &name);

/// The set space of `dims` unnamed dimensions, no parameters.
isl::space unnamedSetSpace(isl::ctx ctx, unsigned dims);

/// The set space of tuple `name` whose dimensions are named `dims`, no parameters.
isl::space namedSetSpace(isl::ctx ctx, const std::string &name,
                         const std::vector<std::string> &dims);

/// `space` (a set space) with one more dimension at the end, its tuple id kept.
isl::space withOneMoreDim(const isl::space &space);

/// The map space from set space `domain` to set space `range`.
isl::space mapSpace(const isl::space &domain, const isl::space &range);

/// The map from each point of `value`'s domain to its value.
isl::union_map valueMap(const isl::union_pw_aff &value);

/// floor(value / factor), factor > 0.
isl::union_pw_aff floorDiv(const isl::union_pw_aff &value, int factor);

/// value mod factor, in 0 .. factor - 1 (factor > 0).
isl::union_pw_aff modulo(const isl::union_pw_aff &value, int factor);

/// `set` without the constraints implied by the others (isl_union_set_remove_redundancies).
isl::union_set withoutRedundancies(const isl::union_set &set);

/// `map` without the constraints implied by the others.
isl::union_map withoutRedundancies(const isl::union_map &map);

/// The statement instances reaching `node` in the schedule tree.
isl::union_set nodeDomain(const isl::schedule_node &node);

/// The set space of `band`'s partial schedule.
isl::space bandSpace(const isl::schedule_node_band &band);

/// The identifier named `name` exactly (isl_id_alloc; isl::id(ctx, str) parses its string, so
/// "vector:8" would become "vector").
isl::id namedId(isl::ctx ctx, const std::string &name);

/// The identifier of mark node `mark`.
isl::id markId(const isl::schedule_node &mark);

/// The tree of `node` with `node` removed (its child takes its place), at that child.
isl::schedule_node deleteNode(const isl::schedule_node &node);

/// `to` with member `toMember` given the coincident flag and AST loop type (unroll, separate,
/// ...) of member `fromMember` of `from`.
isl::schedule_node_band copyMemberFlags(const isl::schedule_node_band &to, int toMember,
                                        const isl::schedule_node_band &from, int fromMember);

/// The schedule running all of `first`'s instances, then all of `second`'s (domains disjoint):
/// isl_schedule_sequence, i.e. a sequence whose filters are the two domains, flattening a
/// sequence at the top of either operand into the new one.
isl::schedule sequence(const isl::schedule &first, const isl::schedule &second);

/// Sets isl's tiling options of `ctx` to a tile band counting tiles (not scaled) and a point band
/// keeping the original values (not shifted) while it lives; restores the previous options when
/// destroyed.
class UnscaledTiling {
public:
  explicit UnscaledTiling(isl::ctx ctx);
  ~UnscaledTiling();
  UnscaledTiling(const UnscaledTiling &) = delete;
  UnscaledTiling &operator=(const UnscaledTiling &) = delete;

private:
  isl::ctx ctx_;
  int scale_;
  int shift_;
};

} // namespace nasc::poly
