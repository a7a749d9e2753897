#include "compiler/nas/SpatialBottleneckScop.h"

#include "compiler/nas/NeuralStep.h"
#include "ir/Error.h"
#include "ir/lower/Window.h"

#include <algorithm>

namespace nasc::nas {

namespace {

/// Throws unless `shape` (N, K, O...) has a spatial extent O_i and S >= 1 divides every one,
/// naming `what`.
void checkDivides(const std::string &what, const ir::Shape &shape, int64_t S) {
  if (shape.size() < 3)
    throw Error(what + ": " + ir::shapeToString(shape) + " has no spatial dimension");
  for (size_t d = 2; d < shape.size(); ++d)
    if (S < 1 || shape[d] % S != 0)
      throw Error(what + ": S = " + std::to_string(S) + " does not divide the output extent " +
                  std::to_string(shape[d]) + " of " + ir::shapeToString(shape));
}

/// (N, K, O_1/S, ..., O_d/S).
ir::Shape stridedShape(ir::Shape shape, int64_t S) {
  for (size_t d = 2; d < shape.size(); ++d)
    shape[d] /= S;
  return shape;
}

/// The identity on `space` with dims `first`, `first` + 1, ..., `end` − 1 multiplied by S.
isl::multi_aff scaleDims(const isl::space &space, int first, int end, int64_t S) {
  isl::multi_aff m = isl::multi_aff::identity_on_domain(space);
  for (int d = first; d < end; ++d)
    m = m.set_at(d, m.at(d).scale(isl::val(space.ctx(), S)));
  return m;
}

/// The Resize of `changed` that `graph` does not have: the expansion spatialBottleneck inserted.
const ir::Node &insertedResize(const ir::Graph &graph, const ir::Graph &changed) {
  for (const ir::Node &resize : changed.nodes)
    if (resize.op_type == "Resize" &&
        std::none_of(graph.nodes.begin(), graph.nodes.end(),
                     [&](const ir::Node &old) { return old.name == resize.name; }))
      return resize;
  throw Error(graph.source + ": spatial_bottleneck inserted no Resize");
}

} // namespace

ScopRelations stridedScop(const ScopRelations &relations, const Reduction &r, int64_t S,
                          const std::string &output, const std::string &strided) {
  const ir::Shape out(r.statement->extents.begin(), r.statement->extents.begin() + r.c);
  checkDivides("statement " + r.statement->name, out, S);
  const isl::space space = statementDomain(relations, r.statement->name).space();
  isl::set bounds = isl::set::universe(space);
  for (int d = r.k + 1; d < r.c; ++d)
    bounds = bounds.intersect(dimRange(space, d, 0, out[static_cast<size_t>(d)] / S));
  const isl::space elements = tensorSpace(space.ctx(), strided, static_cast<unsigned>(out.size()));
  const isl::map shrink =
      tensorMap(scaleDims(elements, 2, static_cast<int>(out.size()), S), output);
  return rewriteStatement(relations, scaleDims(space, r.k + 1, r.c, S), bounds,
                          isl::union_map(shrink.reverse()));
}

ScopRelations expansionScop(isl::ctx ctx, const std::string &name, const ir::Shape &shape,
                            int64_t S, const std::string &source, const std::string &expanded) {
  checkDivides("expansion " + name, shape, S);
  std::vector<std::string> iterators{"n", "k"};
  for (const std::string &o : ir::lower::outputIterators(shape.size() - 2))
    iterators.push_back(o);
  const isl::space space = statementSpace(ctx, name, iterators);
  isl::set box = isl::set::universe(space);
  for (size_t d = 0; d < shape.size(); ++d)
    box = box.intersect(dimRange(space, static_cast<int>(d), 0, shape[d]));
  const isl::multi_aff id = isl::multi_aff::identity_on_domain(space);
  isl::multi_aff nearest = id;
  for (int d = 2; d < static_cast<int>(shape.size()); ++d)
    nearest = nearest.set_at(d, id.at(d).scale_down(isl::val(ctx, S)).floor());
  const isl::union_set domain(box);
  return {domain, isl::union_map(tensorMap(nearest, source)).intersect_domain(domain),
          isl::union_map(tensorMap(id, expanded)).intersect_domain(domain)};
}

std::vector<ScopRewrite> spatialBottleneckRewrite(isl::ctx ctx, const ir::Graph &graph,
                                                  const std::string &node, int64_t S) {
  const ir::Graph changed = applyNeuralStep(graph, {node, "spatial_bottleneck", {S}});
  const ir::Node &resize = insertedResize(graph, changed);
  const ir::Program program = lowerForInference(graph);
  const ir::Kernel &kernel = kernelOf(program, node);
  const poly::Scop scop = poly::buildScop(ctx, kernel);
  const Reduction r = findReduction(kernel);
  const std::string &output =
      kernel.tensors.at(static_cast<size_t>(r.statement->write.tensor)).name;
  const std::string source = ir::toIdentifier(resize.inputs.at(0));
  const std::string expanded = ir::toIdentifier(resize.outputs.at(0));
  const std::string strided = output == expanded ? source : output;
  const ScopRelations before = statementOnly(relationsOf(scop), r.statement->name);
  const ScopRelations after = stridedScop(before, r, S, output, strided);
  std::map<std::string, ir::Shape> shapes = tensorShapes(kernel);
  shapes[strided] = stridedShape(shapes.at(output), S);
  checkInsideTensors(after, shapes);
  const ir::Shape &full = graph.shapeOf(resize.outputs.at(0));
  const ScopRelations expansion = expansionScop(ctx, "E", full, S, source, expanded);
  checkInsideTensors(expansion, {{source, stridedShape(full, S)}, {expanded, full}});
  return {{"strided " + node, before, after},
          {"expansion " + resize.name, emptyRelations(ctx), expansion}};
}

} // namespace nasc::nas
