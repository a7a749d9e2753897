#include "polyhedral/FullTiles.h"

#include <algorithm>
#include <vector>

namespace nasc::poly {

namespace {

/// The members of band `node` of AST loop type unroll.
std::vector<int> unrolledMembers(isl_schedule_node *node) {
  std::vector<int> members;
  const isl_size n = isl_schedule_node_band_n_member(node);
  for (int m = 0; m < n; ++m)
    if (isl_schedule_node_band_member_get_ast_loop_type(node, m) == isl_ast_loop_unroll)
      members.push_back(m);
  return members;
}

/// Whether `node` has a parent and it is a mark node.
bool underMark(isl_schedule_node *node) {
  if (isl_schedule_node_has_parent(node) != isl_bool_true)
    return false;
  isl_schedule_node *parent = isl_schedule_node_parent(isl_schedule_node_copy(node));
  const bool mark = isl_schedule_node_get_type(parent) == isl_schedule_node_mark;
  isl_schedule_node_free(parent);
  return mark;
}

/// The points (outer band members, then this band's members) that band `node`'s instances take,
/// with anonymous tuples; null when they lie in several spaces.
isl_set *bandPoints(isl_schedule_node *node) {
  isl_multi_union_pw_aff *schedule = isl_multi_union_pw_aff_flat_range_product(
      isl_schedule_node_get_prefix_schedule_multi_union_pw_aff(node),
      isl_schedule_node_band_get_partial_schedule(node));
  isl_union_map *map = isl_union_map_from_multi_union_pw_aff(schedule);
  map = isl_union_map_intersect_domain(map, isl_schedule_node_get_domain(node));
  isl_union_set *points = isl_union_map_range(map);
  if (isl_union_set_n_set(points) != 1) {
    isl_union_set_free(points);
    return nullptr;
  }
  return isl_set_reset_tuple_id(isl_set_from_union_set(points));
}

/// The box of the values dimensions `dims` of `points` take: [min, max] of each, in the space of
/// those dimensions alone.
isl_set *rangeBox(isl_set *points, const std::vector<int> &dims) {
  isl_space *space = isl_space_set_alloc(isl_set_get_ctx(points), 0, dims.size());
  isl_set *box = isl_set_universe(space);
  for (size_t i = 0; i < dims.size(); ++i) {
    box = isl_set_lower_bound_val(box, isl_dim_set, i,
                                  isl_set_dim_min_val(isl_set_copy(points), dims[i]));
    box = isl_set_upper_bound_val(box, isl_dim_set, i,
                                  isl_set_dim_max_val(isl_set_copy(points), dims[i]));
  }
  return box;
}

/// `points` as a map from its dimensions not in `dims` to those in `dims` (both in order).
isl_map *splitDims(isl_set *points, const std::vector<int> &dims) {
  isl_map *map = isl_map_from_range(points);
  const isl_size total = isl_map_dim(map, isl_dim_out);
  unsigned moved = 0, kept = 0;
  for (int d = 0; d < total; ++d) {
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) {
      ++kept;
      continue;
    }
    map = isl_map_move_dims(map, isl_dim_in, moved++, isl_dim_out, kept, 1);
  }
  return map;
}

/// The points of `points` whose dimensions not in `dims` are those of a full tile: every value
/// of the box of `dims` occurs with them. Null when every point is in a full tile (nothing to
/// isolate) or none is.
isl_set *fullTilePoints(isl_set *points, const std::vector<int> &dims) {
  isl_set *box = rangeBox(points, dims);
  isl_map *byOthers = splitDims(points, dims);
  isl_set *others = isl_map_domain(isl_map_copy(byOthers));
  isl_map *every = isl_map_from_domain_and_range(isl_set_copy(others), box);
  isl_set *partial = isl_map_domain(isl_map_subtract(every, byOthers));
  if (isl_set_is_empty(partial) == isl_bool_true) {
    isl_set_free(partial);
    isl_set_free(others);
    return nullptr;
  }
  isl_set *full = isl_set_subtract(others, partial);
  if (isl_set_is_empty(full) == isl_bool_true) {
    isl_set_free(full);
    return nullptr;
  }
  for (int d : dims)
    full = isl_set_insert_dims(full, isl_dim_set, static_cast<unsigned>(d), 1);
  return full;
}

/// `points` without its last `inner` dimensions: the members inside a band's last unrolled
/// one, whose values within a tile do not make it full or partial (the lanes of a row of
/// vectors whose last vector is partial).
isl_set *withoutInnerMembers(isl_set *points, unsigned inner) {
  const isl_size total = isl_set_dim(points, isl_dim_set);
  return isl_set_project_out(points, isl_dim_set, static_cast<unsigned>(total) - inner, inner);
}

/// The isolate option { isolate[[outer] -> [band]] : full } for a band below `outer` members.
isl_union_set *isolateOption(isl_set *full, unsigned outer) {
  isl_map *map = isl_map_move_dims(isl_map_from_range(full), isl_dim_in, 0, isl_dim_out, 0, outer);
  return isl_union_set_from_set(isl_set_set_tuple_name(isl_map_wrap(map), "isolate"));
}

/// isolateFullTiles for one schedule node (isl_schedule_map_schedule_node_bottom_up callback).
isl_schedule_node *isolateBand(isl_schedule_node *node, void *) {
  if (isl_schedule_node_get_type(node) != isl_schedule_node_band || underMark(node))
    return node;
  const std::vector<int> unrolled = unrolledMembers(node);
  if (unrolled.empty())
    return node;
  isl_set *points = bandPoints(node);
  if (!points)
    return node;
  const isl_size members = isl_schedule_node_band_n_member(node);
  const isl_size outer = isl_set_dim(points, isl_dim_set) - members;
  const unsigned inner = static_cast<unsigned>(members - unrolled.back() - 1);
  std::vector<int> dims;
  for (int m : unrolled)
    dims.push_back(outer + m);
  isl_set *full = fullTilePoints(withoutInnerMembers(points, inner), dims);
  if (!full)
    return node;
  full = isl_set_add_dims(full, isl_dim_set, inner);
  std::vector<isl_ast_loop_type> types;
  for (int m = 0; m < isl_schedule_node_band_n_member(node); ++m)
    types.push_back(isl_schedule_node_band_member_get_ast_loop_type(node, m));
  // Setting the options resets the members' loop types (isl keeps them among the options).
  node = isl_schedule_node_band_set_ast_build_options(
      node, isolateOption(full, static_cast<unsigned>(outer)));
  for (size_t m = 0; m < types.size(); ++m) {
    node = isl_schedule_node_band_member_set_ast_loop_type(node, static_cast<int>(m), types[m]);
    node = isl_schedule_node_band_member_set_isolate_ast_loop_type(node, static_cast<int>(m),
                                                                   types[m]);
  }
  return node;
}

} // namespace

isl::schedule isolateFullTiles(const isl::schedule &schedule) {
  return isl::manage(
      isl_schedule_map_schedule_node_bottom_up(schedule.copy(), isolateBand, nullptr));
}

} // namespace nasc::poly
