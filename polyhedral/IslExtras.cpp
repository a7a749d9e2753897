#include "polyhedral/IslExtras.h"

#include <isl/schedule_node.h>

namespace nasc::poly {

namespace {

std::string nameOrEmpty(const char *name) { return name ? name : ""; }

} // namespace

std::string tupleName(const isl::set &set) {
  return nameOrEmpty(isl_set_get_tuple_name(set.get()));
}

std::string domainTupleName(const isl::map &map) {
  return nameOrEmpty(isl_map_get_tuple_name(map.get(), isl_dim_in));
}

std::string rangeTupleName(const isl::multi_aff &m) {
  return nameOrEmpty(isl_multi_aff_get_tuple_name(m.get(), isl_dim_out));
}

int dimIndex(const isl::set &set, const std::string &name) {
  return isl_set_find_dim_by_name(set.get(), isl_dim_set, name.c_str());
}

isl::space unnamedSetSpace(isl::ctx ctx, unsigned dims) {
  return isl::manage(isl_space_set_alloc(ctx.get(), 0, dims));
}

isl::space namedSetSpace(isl::ctx ctx, const std::string &name,
                         const std::vector<std::string> &dims) {
  isl_space *space =
      isl::space::unit(ctx).add_named_tuple(name, static_cast<unsigned>(dims.size())).release();
  for (size_t i = 0; i < dims.size(); ++i)
    space = isl_space_set_dim_name(space, isl_dim_set, static_cast<unsigned>(i), dims[i].c_str());
  return isl::manage(space);
}

isl::space withOneMoreDim(const isl::space &space) {
  isl::space result = isl::manage(isl_space_add_dims(space.copy(), isl_dim_set, 1));
  if (!isl_space_has_tuple_id(space.get(), isl_dim_set))
    return result;
  return isl::manage(isl_space_set_tuple_id(result.release(), isl_dim_set,
                                            isl_space_get_tuple_id(space.get(), isl_dim_set)));
}

isl::space mapSpace(const isl::space &domain, const isl::space &range) {
  return isl::manage(isl_space_map_from_domain_and_range(domain.copy(), range.copy()));
}

isl::union_map valueMap(const isl::union_pw_aff &value) {
  return isl::manage(isl_union_map_from_union_pw_aff(value.copy()));
}

isl::union_pw_aff floorDiv(const isl::union_pw_aff &value, int factor) {
  isl::val f(value.ctx(), factor);
  return isl::manage(
      isl_union_pw_aff_floor(isl_union_pw_aff_scale_down_val(value.copy(), f.release())));
}

isl::union_pw_aff modulo(const isl::union_pw_aff &value, int factor) {
  isl::val f(value.ctx(), factor);
  return isl::manage(isl_union_pw_aff_mod_val(value.copy(), f.release()));
}

isl::union_set withoutRedundancies(const isl::union_set &set) {
  return isl::manage(isl_union_set_remove_redundancies(set.copy()));
}

isl::union_map withoutRedundancies(const isl::union_map &map) {
  return isl::manage(isl_union_map_remove_redundancies(map.copy()));
}

isl::union_set nodeDomain(const isl::schedule_node &node) {
  return isl::manage(isl_schedule_node_get_domain(node.get()));
}

isl::space bandSpace(const isl::schedule_node_band &band) {
  return isl::manage(isl_schedule_node_band_get_space(band.get()));
}

isl::id namedId(isl::ctx ctx, const std::string &name) {
  return isl::manage(isl_id_alloc(ctx.get(), name.c_str(), nullptr));
}

isl::id markId(const isl::schedule_node &mark) {
  return isl::manage(isl_schedule_node_mark_get_id(mark.get()));
}

isl::schedule_node deleteNode(const isl::schedule_node &node) {
  return isl::manage(isl_schedule_node_delete(node.copy()));
}

isl::schedule_node_band copyMemberFlags(const isl::schedule_node_band &to, int toMember,
                                        const isl::schedule_node_band &from, int fromMember) {
  isl::schedule_node_band result =
      to.member_set_coincident(toMember, from.member_get_coincident(fromMember));
  return isl::manage(isl_schedule_node_band_member_set_ast_loop_type(
                         result.release(), toMember,
                         isl_schedule_node_band_member_get_ast_loop_type(from.get(), fromMember)))
      .as<isl::schedule_node_band>();
}

isl::schedule sequence(const isl::schedule &first, const isl::schedule &second) {
  return isl::manage(isl_schedule_sequence(first.copy(), second.copy()));
}

UnscaledTiling::UnscaledTiling(isl::ctx ctx)
    : ctx_(ctx), scale_(isl_options_get_tile_scale_tile_loops(ctx.get())),
      shift_(isl_options_get_tile_shift_point_loops(ctx.get())) {
  isl_options_set_tile_scale_tile_loops(ctx_.get(), 0);
  isl_options_set_tile_shift_point_loops(ctx_.get(), 0);
}

UnscaledTiling::~UnscaledTiling() {
  isl_options_set_tile_scale_tile_loops(ctx_.get(), scale_);
  isl_options_set_tile_shift_point_loops(ctx_.get(), shift_);
}

} // namespace nasc::poly
