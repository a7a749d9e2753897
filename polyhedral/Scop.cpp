#include "polyhedral/Scop.h"

#include "ir/Error.h"
#include "polyhedral/FullTiles.h"
#include "polyhedral/IslExtras.h"
#include "polyhedral/ParallelLoops.h"

#include <isl/options.h>

namespace nasc::poly {

IslContext::IslContext(unsigned long maxOperations) : ctx_(isl_ctx_alloc()) {
  isl_options_set_on_error(ctx_, ISL_ON_ERROR_CONTINUE);
  isl_ctx_set_max_operations(ctx_, maxOperations);
}

IslContext::~IslContext() { isl_ctx_free(ctx_); }

namespace {

isl::space statementSpace(isl::ctx ctx, const ir::Statement &st) {
  isl_space *space =
      isl::space::unit(ctx).add_named_tuple(st.name, static_cast<unsigned>(st.depth())).release();
  for (size_t i = 0; i < st.depth(); ++i)
    space = isl_space_set_dim_name(space, isl_dim_set, static_cast<unsigned>(i),
                                   st.iterators[i].c_str());
  return isl::manage(space);
}

isl::aff toAff(const isl::space &space, const ir::AffineExpr &expr) {
  isl::multi_aff identity = isl::multi_aff::identity_on_domain(space);
  isl::aff result = space.zero_aff_on_domain().add_constant(expr.constant);
  for (size_t i = 0; i < expr.coeffs.size(); ++i)
    if (expr.coeffs[i] != 0)
      result = result.add(identity.at(static_cast<int>(i)).scale(expr.coeffs[i]));
  return result;
}

isl::set statementDomain(const isl::space &space, const ir::Statement &st) {
  isl::set domain = isl::set::universe(space);
  size_t depth = st.depth();
  for (size_t i = 0; i < depth; ++i) {
    isl::aff it = toAff(space, ir::AffineExpr::iter(depth, i));
    domain = domain.intersect(it.ge_set(space.zero_aff_on_domain()));
    domain = domain.intersect(it.lt_set(space.zero_aff_on_domain().add_constant(st.extents[i])));
  }
  for (const auto &c : st.constraints) {
    isl::aff a = toAff(space, c.expr);
    isl::aff zero = space.zero_aff_on_domain();
    domain = domain.intersect(c.equality ? a.eq_set(zero) : a.ge_set(zero));
  }
  return domain;
}

isl::map accessRelation(const isl::space &space, const isl::set &domain, const ir::Kernel &kernel,
                        const ir::Statement &st, const ir::Access &access) {
  const ir::TensorDecl &tensor = kernel.tensors.at(static_cast<size_t>(access.tensor));
  if (access.index.size() != tensor.shape.size())
    throw Error("kernel " + kernel.name + ": statement " + st.name + " accesses tensor " +
                tensor.name + " with " + std::to_string(access.index.size()) +
                " indices, but it has rank " + std::to_string(tensor.shape.size()));
  isl::aff_list list(space.ctx(), static_cast<int>(access.index.size()));
  for (const auto &index : access.index)
    list = list.add(toAff(space, index));
  isl::space mapSpace = space.add_named_tuple(tensor.name, static_cast<unsigned>(list.size()));
  isl::multi_aff ma(mapSpace, list);
  return isl::map(isl::manage(isl_map_from_multi_aff(ma.release()))).intersect_domain(domain);
}

isl::schedule statementSchedule(const isl::space &space, const isl::set &domain) {
  isl::multi_aff identity = isl::multi_aff::identity_on_domain(space);
  isl::schedule schedule = isl::schedule::from_domain(isl::union_set(domain));
  if (identity.size() == 0)
    return schedule;
  isl::multi_union_pw_aff band{isl::multi_pw_aff{isl::pw_multi_aff{identity}}};
  return schedule.root().child(0).insert_partial_schedule(band).schedule();
}

} // namespace

Scop buildScop(isl::ctx ctx, const ir::Kernel &kernel) {
  Scop scop;
  scop.domain = isl::union_set::empty(ctx);
  scop.reads = isl::union_map::empty(ctx);
  scop.writes = isl::union_map::empty(ctx);
  for (const auto &st : kernel.statements) {
    isl::space space = statementSpace(ctx, st);
    isl::set domain = statementDomain(space, st);
    scop.domain = scop.domain.unite(isl::union_set(domain));
    isl::map write = accessRelation(space, domain, kernel, st, st.write);
    scop.writes = scop.writes.unite(isl::union_map(write));
    if (st.update != ir::Update::Assign)
      scop.reads = scop.reads.unite(isl::union_map(write));
    for (const ir::Access *load : ir::loadsOf(st.value))
      scop.reads =
          scop.reads.unite(isl::union_map(accessRelation(space, domain, kernel, st, *load)));
    isl::schedule s = statementSchedule(space, domain);
    scop.schedule = scop.schedule.is_null() ? s : sequence(scop.schedule, s);
  }
  if (scop.schedule.is_null())
    throw Error("kernel " + kernel.name + " has no statements");
  return scop;
}

isl::ast_node generateAst(const Scop &scop) {
  isl::set context = isl::set::universe(isl::space::unit(scop.schedule.ctx()));
  requireMarkedLoops(scop.schedule);
  isl::ast_build build = isl::ast_build::from_context(context);
  return build.node_from(isolateFullTiles(scop.schedule));
}

std::string astToString(const isl::ast_node &ast) { return ast.to_C_str(); }

} // namespace nasc::poly
