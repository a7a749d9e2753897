#include "compiler/nas/NeuralScop.h"

#include "compiler/transforms/ConvStatement.h"
#include "compiler/transforms/KernelEdit.h"
#include "ir/Error.h"
#include "ir/lower/Lower.h"
#include "ir/passes/Passes.h"
#include "polyhedral/IslExtras.h"

#include <algorithm>
#include <optional>
#include <sstream>

namespace nasc::nas {

namespace {

bool grouped(const ChannelPart &part) { return part.groups > 1; }

/// `st` as the reduction statement of a dense convolution O[n, k, ...] += I[n, c, ...] ·
/// W[k, c, ...] (compiler::matchConvolution without a group iterator); nullopt otherwise.
std::optional<Reduction> denseConvolution(const ir::Statement &st) {
  compiler::ConvStatement conv;
  if (!compiler::matchConvolution(st, conv).empty() || conv.group)
    return std::nullopt;
  return Reduction{&st, static_cast<int>(conv.k), static_cast<int>(conv.c)};
}

/// The set space of the rewritten statement: S[n, g, kg, o..., cg, r...], or the statement's own
/// S[n, k, o..., c, r...] when the part has one group.
isl::space partSpace(isl::ctx ctx, const Reduction &r, const ChannelPart &part) {
  std::vector<std::string> names = r.statement->iterators;
  if (grouped(part)) {
    names[static_cast<size_t>(r.k)] = "kg";
    names[static_cast<size_t>(r.c)] = "cg";
    names.insert(names.begin() + r.k, "g");
  }
  return statementSpace(ctx, r.statement->name, names);
}

/// M: S[n, g, kg, o..., cg, r...] -> S[n, offset + g·count/G + kg, o..., g·C/G + cg, r...].
isl::multi_aff partToDense(const isl::space &from, const isl::space &dense, const Reduction &r,
                           const ChannelPart &part) {
  const isl::multi_aff id = isl::multi_aff::identity_on_domain(from);
  const int shift = grouped(part) ? 1 : 0;
  const isl::aff g = grouped(part) ? id.at(r.k) : from.zero_aff_on_domain();
  const isl::val kSlice(from.ctx(), part.count / part.groups),
      cSlice(from.ctx(), r.C() / part.groups);
  isl::aff_list list(from.ctx(), static_cast<int>(r.statement->depth()));
  for (int old = 0; old < static_cast<int>(r.statement->depth()); ++old) {
    const isl::aff it = id.at(old < r.k ? old : old + shift);
    if (old == r.k)
      list = list.add(g.scale(kSlice).add(it).add_constant(isl::val(from.ctx(), part.offset)));
    else if (old == r.c)
      list = list.add(g.scale(cSlice).add(it));
    else
      list = list.add(it);
  }
  return isl::multi_aff(poly::mapSpace(from, dense), list);
}

/// 0 <= g < G, 0 <= kg < count/G, 0 <= cg < C/G (0 <= k < count when G = 1).
isl::set partBounds(const isl::space &space, const Reduction &r, const ChannelPart &part) {
  if (!grouped(part))
    return dimRange(space, r.k, 0, part.count);
  return dimRange(space, r.k, 0, part.groups)
      .intersect(dimRange(space, r.k + 1, 0, part.count / part.groups))
      .intersect(dimRange(space, r.c + 1, 0, r.C() / part.groups));
}

/// W[k, c, r...] -> P[k − offset, c − floor((k − offset)/(count/G))·C/G, r...].
isl::map packWeight(const isl::space &weightSpace, const Reduction &r, const ChannelPart &part,
                    const std::string &packed) {
  isl::ctx ctx = weightSpace.ctx();
  const isl::multi_aff id = isl::multi_aff::identity_on_domain(weightSpace);
  const isl::aff row = id.at(0).add_constant(isl::val(ctx, -part.offset));
  const isl::aff group = row.scale_down(isl::val(ctx, part.count / part.groups)).floor();
  return tensorMap(
      id.set_at(0, row).set_at(1, id.at(1).sub(group.scale(isl::val(ctx, r.C() / part.groups)))),
      packed);
}

/// `relations` with equalities detected, coalesced, and without redundant constraints (the bounds
/// that the preimage of the old domain repeats), as isl prints them most simply.
ScopRelations withoutRedundancies(const ScopRelations &relations) {
  return {poly::withoutRedundancies(relations.domain.coalesce()),
          poly::withoutRedundancies(relations.reads.detect_equalities().coalesce()),
          poly::withoutRedundancies(relations.writes.detect_equalities().coalesce())};
}

/// The accesses of statement `name` in `accesses` pulled back through `m` and then through
/// `tensors`; the other statements' accesses unchanged.
isl::union_map pullBack(const isl::union_map &accesses, const std::string &name,
                        const isl::multi_aff &m, const isl::union_map &tensors) {
  isl::union_map pulled = isl::union_map::empty(accesses.ctx());
  isl::union_map others = pulled;
  accesses.foreach_map([&](isl::map access) {
    if (poly::domainTupleName(access) == name)
      pulled = pulled.unite(isl::union_map(access.preimage_domain(m)));
    else
      others = others.unite(isl::union_map(access));
  });
  return others.unite(throughCopy(pulled, tensors));
}

} // namespace

int64_t Reduction::K() const { return statement->extents.at(static_cast<size_t>(k)); }

int64_t Reduction::C() const { return statement->extents.at(static_cast<size_t>(c)); }

unsigned Reduction::weightRank() const {
  return static_cast<unsigned>(statement->depth()) - static_cast<unsigned>(c) + 1;
}

Reduction findReduction(const ir::Kernel &kernel) {
  for (const ir::Statement &st : kernel.statements)
    if (std::optional<Reduction> r = denseConvolution(st))
      return *r;
  throw Error("kernel '" + kernel.name +
              "' has no dense convolution statement O[n, k, ...] += I[n, c, ...] · W[k, c, ...] "
              "with c a reduction iterator");
}

const std::string &weightOf(const ir::Kernel &kernel, const Reduction &r) {
  return kernel.tensors.at(static_cast<size_t>(r.statement->value.args.at(1).access.tensor)).name;
}

ScopRelations rewriteChannels(const ScopRelations &relations, const Reduction &r,
                              const ChannelPart &part, const std::string &weight,
                              const std::string &packed) {
  const int64_t G = part.groups;
  const std::string channels = "output channels [" + std::to_string(part.offset) + ", " +
                               std::to_string(part.offset + part.count) + ")";
  if (part.offset < 0 || part.count < 1 || part.offset + part.count > r.K())
    throw Error("statement " + r.statement->name + ": " + channels +
                " are not inside K = " + std::to_string(r.K()));
  if (G < 1 || part.count % G != 0 || r.C() % G != 0)
    throw Error("statement " + r.statement->name + ": group(" + std::to_string(G) +
                ") does not divide C = " + std::to_string(r.C()) + " and the " +
                std::to_string(part.count) + " " + channels);
  const isl::space space = partSpace(relations.domain.ctx(), r, part);
  const isl::space dense = statementDomain(relations, r.statement->name).space();
  const isl::space weightSpace = tensorSpace(relations.domain.ctx(), weight, r.weightRank());
  return rewriteStatement(relations, partToDense(space, dense, r, part), partBounds(space, r, part),
                          isl::union_map(packWeight(weightSpace, r, part, packed)));
}

ScopRelations rewriteStatement(const ScopRelations &relations, const isl::multi_aff &m,
                               const isl::set &bounds, const isl::union_map &tensors) {
  const std::string name = poly::rangeTupleName(m);
  isl::union_set domain =
      isl::union_set(statementDomain(relations, name).preimage(m).intersect(bounds));
  relations.domain.foreach_set([&](isl::set set) {
    if (poly::tupleName(set) != name)
      domain = domain.unite(isl::union_set(set));
  });
  return withoutRedundancies(
      {domain, pullBack(relations.reads, name, m, tensors).intersect_domain(domain),
       pullBack(relations.writes, name, m, tensors).intersect_domain(domain)});
}

isl::union_map throughCopy(const isl::union_map &accesses, const isl::union_map &copy) {
  const isl::union_set others = accesses.range().subtract(copy.domain());
  return accesses.apply_range(copy.unite(others.identity()));
}

isl::union_map copySources(const ScopRelations &copy) {
  return copy.writes.reverse().apply_range(copy.reads);
}

isl::space statementSpace(isl::ctx ctx, const std::string &name,
                          const std::vector<std::string> &iterators) {
  return poly::namedSetSpace(ctx, name, iterators);
}

isl::space tensorSpace(isl::ctx ctx, const std::string &name, unsigned rank) {
  return isl::space::unit(ctx).add_named_tuple(name, rank);
}

isl::map tensorMap(isl::multi_aff m, const std::string &to) {
  isl::space range = tensorSpace(m.ctx(), to, m.size());
  return isl::multi_aff(poly::mapSpace(m.space().domain(), range), m.list()).as_map();
}

ScopRelations emptyRelations(isl::ctx ctx) {
  return {isl::union_set::empty(ctx), isl::union_map::empty(ctx), isl::union_map::empty(ctx)};
}

ScopRelations relationsOf(const poly::Scop &scop) { return {scop.domain, scop.reads, scop.writes}; }

isl::set statementDomain(const ScopRelations &relations, const std::string &name) {
  isl::set found;
  relations.domain.foreach_set([&](isl::set set) {
    if (poly::tupleName(set) == name)
      found = set;
  });
  if (found.is_null())
    throw Error("no statement named '" + name + "' in the Scop");
  return found;
}

ScopRelations statementOnly(const ScopRelations &relations, const std::string &name) {
  isl::union_set domain = isl::union_set::empty(relations.domain.ctx());
  relations.domain.foreach_set([&](isl::set set) {
    if (poly::tupleName(set) == name)
      domain = isl::union_set(set);
  });
  return {domain, relations.reads.intersect_domain(domain),
          relations.writes.intersect_domain(domain)};
}

isl::set dimRange(const isl::space &space, int dim, int64_t lo, int64_t hi) {
  const isl::aff it = isl::multi_aff::identity_on_domain(space).at(dim);
  const isl::aff zero = space.zero_aff_on_domain();
  return it.ge_set(zero.add_constant(isl::val(space.ctx(), lo)))
      .intersect(it.lt_set(zero.add_constant(isl::val(space.ctx(), hi))));
}

const ir::Kernel &kernelOf(const ir::Program &program, const std::string &node) {
  for (const ir::KernelCall &call : program.calls)
    if (std::find(call.nodes.begin(), call.nodes.end(), node) != call.nodes.end())
      return call.kernel;
  throw Error("no kernel implements node '" + node + "'");
}

std::vector<SplitPart> splitParts(const ir::Graph &graph, const NeuralStep &step) {
  const ir::Graph split = applyNeuralStep(graph, step);
  const ConvLayer conv = convLayer(graph, step.node, step.toString());
  const ir::Node &concat =
      split.nodes.at(split.producerOf(graph.nodes[conv.node].outputs.at(0)).value());
  std::vector<SplitPart> parts;
  for (const std::string &input : concat.inputs) {
    const std::string &node = split.nodes.at(split.producerOf(input).value()).name;
    parts.push_back({convLayer(split, node, step.toString()), split.shapeOf(input)});
  }
  return parts;
}

ir::Program lowerForInference(ir::Graph graph) {
  ir::prepareForInference(graph);
  return ir::lowerGraph(graph);
}

std::map<std::string, ir::Shape> tensorShapes(const ir::Kernel &kernel) {
  std::map<std::string, ir::Shape> shapes;
  for (const ir::TensorDecl &t : kernel.tensors)
    shapes[t.name] = t.shape;
  return shapes;
}

void checkInsideTensors(const ScopRelations &relations,
                        const std::map<std::string, ir::Shape> &shapes) {
  const isl::union_set touched = relations.reads.unite(relations.writes).range();
  touched.foreach_set([&](isl::set elements) {
    const std::string tensor = poly::tupleName(elements);
    auto shape = shapes.find(tensor);
    if (shape == shapes.end())
      throw Error("access to unknown tensor '" + tensor + "'");
    const isl::space space = elements.space();
    isl::set box = isl::set::universe(space);
    for (size_t d = 0; d < shape->second.size(); ++d)
      box = box.intersect(dimRange(space, static_cast<int>(d), 0, shape->second[d]));
    if (elements.is_subset(box))
      return;
    std::ostringstream outside;
    outside << elements.subtract(box).detect_equalities().coalesce();
    throw Error("accesses outside tensor '" + tensor + "' " + ir::shapeToString(shape->second) +
                ": " + outside.str());
  });
}

} // namespace nasc::nas
