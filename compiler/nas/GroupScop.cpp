#include "compiler/nas/GroupScop.h"

#include "ir/Error.h"
#include "ir/lower/Lower.h"
#include "ir/passes/Passes.h"

#include <algorithm>
#include <sstream>

namespace nasc::nas {

namespace {

std::string tupleName(const isl::map &map, isl_dim_type type) {
  return isl_map_get_tuple_name(map.get(), type);
}

std::string tupleName(const isl::set &set) { return isl_set_get_tuple_name(set.get()); }

/// The dense reduction statement of a lowered convolution and its k and c positions.
struct Reduction {
  const ir::Statement *statement = nullptr;
  int k = 0, c = 0;
};

Reduction findReduction(const ir::Kernel &kernel) {
  for (const ir::Statement &st : kernel.statements) {
    auto k = std::find(st.iterators.begin(), st.iterators.end(), "k");
    auto c = std::find(st.iterators.begin(), st.iterators.end(), "c");
    if (k != st.iterators.end() && c != st.iterators.end())
      return {&st, static_cast<int>(k - st.iterators.begin()),
              static_cast<int>(c - st.iterators.begin())};
  }
  throw Error("kernel '" + kernel.name + "' has no dense convolution statement over (k, c)");
}

int64_t extentOf(const Reduction &r, int position) {
  return r.statement->extents.at(static_cast<size_t>(position));
}

/// The set space S[n, g, kg, o..., cg, r...] of the grouped statement.
isl::space groupedSpace(isl::ctx ctx, const Reduction &r) {
  std::vector<std::string> names = r.statement->iterators;
  names[static_cast<size_t>(r.k)] = "kg";
  names[static_cast<size_t>(r.c)] = "cg";
  names.insert(names.begin() + r.k, "g");
  isl_space *space =
      isl::space::unit(ctx).add_named_tuple(r.statement->name, static_cast<unsigned>(names.size()))
          .release();
  for (size_t i = 0; i < names.size(); ++i)
    space = isl_space_set_dim_name(space, isl_dim_set, static_cast<unsigned>(i), names[i].c_str());
  return isl::manage(space);
}

/// `relations` restricted to the statement `name`.
ScopRelations statementOnly(const ScopRelations &relations, const std::string &name) {
  isl::union_set domain = isl::union_set::empty(relations.domain.ctx());
  relations.domain.foreach_set([&](isl::set set) {
    if (tupleName(set) == name)
      domain = isl::union_set(set);
  });
  return {domain, relations.reads.intersect_domain(domain),
          relations.writes.intersect_domain(domain)};
}

const ir::KernelCall &callOf(const ir::Program &program, const std::string &node) {
  for (const ir::KernelCall &call : program.calls)
    if (std::find(call.nodes.begin(), call.nodes.end(), node) != call.nodes.end())
      return call;
  throw Error("no kernel implements node '" + node + "'");
}

/// M: S[n, g, kg, o..., cg, r...] -> S[n, g·K/G + kg, o..., g·C/G + cg, r...].
isl::multi_aff ungroup(const isl::space &grouped, const isl::space &dense, const Reduction &r,
                       int64_t G) {
  const isl::multi_aff id = isl::multi_aff::identity_on_domain(grouped);
  const isl::aff g = id.at(r.k);
  isl::aff_list list(grouped.ctx(), static_cast<int>(r.statement->depth()));
  for (int old = 0; old < static_cast<int>(r.statement->depth()); ++old) {
    const int fresh = old < r.k ? old : old + 1;
    if (old == r.k)
      list = list.add(g.scale(isl::val(grouped.ctx(), extentOf(r, r.k) / G)).add(id.at(fresh)));
    else if (old == r.c)
      list = list.add(g.scale(isl::val(grouped.ctx(), extentOf(r, r.c) / G)).add(id.at(fresh)));
    else
      list = list.add(id.at(fresh));
  }
  isl::space space = isl::manage(isl_space_map_from_domain_and_range(grouped.copy(), dense.copy()));
  return isl::multi_aff(space, list);
}

/// 0 <= g < G, 0 <= kg < K/G, 0 <= cg < C/G on the grouped space.
isl::set groupBounds(const isl::space &grouped, const Reduction &r, int64_t G) {
  const isl::multi_aff id = isl::multi_aff::identity_on_domain(grouped);
  isl::set bounds = isl::set::universe(grouped);
  const std::pair<int, int64_t> dims[] = {
      {r.k, G}, {r.k + 1, extentOf(r, r.k) / G}, {r.c + 1, extentOf(r, r.c) / G}};
  for (const auto &[dim, extent] : dims) {
    const isl::aff it = id.at(dim);
    bounds = bounds.intersect(it.ge_set(grouped.zero_aff_on_domain()))
                 .intersect(it.lt_set(grouped.zero_aff_on_domain().add_constant(extent)));
  }
  return bounds;
}

/// W[k, c, r...] -> W[k, c − floor(k / (K/G))·C/G, r...] (the grouped weight's packing).
isl::map packWeight(const isl::space &weightSpace, int64_t K, int64_t C, int64_t G) {
  const isl::multi_aff id = isl::multi_aff::identity_on_domain(weightSpace);
  const isl::aff group = id.at(0).scale_down(isl::val(weightSpace.ctx(), K / G)).floor();
  isl::multi_aff pack = id.set_at(1, id.at(1).sub(group.scale(isl::val(weightSpace.ctx(), C / G))));
  return isl::manage(isl_map_from_multi_aff(pack.release()));
}

isl::union_map pullBack(const isl::union_map &accesses, const std::string &statement,
                        const isl::multi_aff &m, const std::string &weight, int64_t K, int64_t C,
                        int64_t G) {
  isl::union_map result = isl::union_map::empty(accesses.ctx());
  accesses.foreach_map([&](isl::map access) {
    if (tupleName(access, isl_dim_in) != statement) {
      result = result.unite(isl::union_map(access));
      return;
    }
    isl::map pulled = access.preimage_domain(m);
    if (tupleName(access, isl_dim_out) == weight)
      pulled = pulled.apply_range(packWeight(access.range().space(), K, C, G));
    result = result.unite(isl::union_map(pulled));
  });
  return result;
}

} // namespace

ScopRelations groupScop(const ir::Kernel &kernel, const poly::Scop &scop,
                        const std::string &weight, int64_t G) {
  const Reduction r = findReduction(kernel);
  const int64_t K = extentOf(r, r.k), C = extentOf(r, r.c);
  if (G < 1 || K % G != 0 || C % G != 0)
    throw Error("kernel '" + kernel.name + "': group(" + std::to_string(G) +
                ") does not divide C = " + std::to_string(C) + " and K = " + std::to_string(K));
  const std::string &name = r.statement->name;
  isl::union_set others = isl::union_set::empty(scop.domain.ctx());
  isl::set dense;
  scop.domain.foreach_set([&](isl::set set) {
    if (tupleName(set) == name)
      dense = set;
    else
      others = others.unite(isl::union_set(set));
  });
  const isl::space grouped = groupedSpace(scop.domain.ctx(), r);
  const isl::multi_aff m = ungroup(grouped, dense.space(), r, G);
  ScopRelations out;
  out.domain = others.unite(isl::union_set(dense.preimage(m).intersect(groupBounds(grouped, r, G))));
  out.reads = pullBack(scop.reads, name, m, weight, K, C, G)
                  .intersect_domain(out.domain)
                  .detect_equalities()
                  .coalesce();
  out.writes = pullBack(scop.writes, name, m, weight, K, C, G).intersect_domain(out.domain);
  return out;
}

GroupRewrite groupRewrite(isl::ctx ctx, const ir::Graph &graph, const std::string &node,
                          int64_t G) {
  ir::Graph inference = graph;
  ir::prepareForInference(inference);
  const ir::Kernel kernel = callOf(ir::lowerGraph(inference), node).kernel;
  const poly::Scop scop = poly::buildScop(ctx, kernel);
  const ir::Statement &reduction = *findReduction(kernel).statement;
  const ir::TensorDecl &weight =
      kernel.tensors.at(static_cast<size_t>(reduction.value.args.at(1).access.tensor));
  std::map<std::string, ir::Shape> shapes;
  for (const ir::TensorDecl &t : kernel.tensors)
    shapes[t.name] = t.shape;
  shapes[weight.name][1] /= G;
  const ScopRelations grouped = groupScop(kernel, scop, weight.name, G);
  checkInsideTensors(grouped, shapes);
  return {statementOnly({scop.domain, scop.reads, scop.writes}, reduction.name),
          statementOnly(grouped, reduction.name)};
}

void checkInsideTensors(const ScopRelations &relations,
                        const std::map<std::string, ir::Shape> &shapes) {
  const isl::union_set touched = relations.reads.unite(relations.writes).range();
  touched.foreach_set([&](isl::set elements) {
    const std::string tensor = tupleName(elements);
    auto shape = shapes.find(tensor);
    if (shape == shapes.end())
      throw Error("access to unknown tensor '" + tensor + "'");
    const isl::space space = elements.space();
    isl::set box = isl::set::universe(space);
    const isl::multi_aff id = isl::multi_aff::identity_on_domain(space);
    for (size_t d = 0; d < shape->second.size(); ++d) {
      const isl::aff i = id.at(static_cast<int>(d));
      box = box.intersect(i.ge_set(space.zero_aff_on_domain()))
                .intersect(i.lt_set(space.zero_aff_on_domain().add_constant(shape->second[d])));
    }
    if (elements.is_subset(box))
      return;
    std::ostringstream outside;
    outside << elements.subtract(box).detect_equalities().coalesce();
    throw Error("accesses outside tensor '" + tensor + "' " + ir::shapeToString(shape->second) +
                ": " + outside.str());
  });
}

} // namespace nasc::nas
