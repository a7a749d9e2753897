#include "compiler/nas/BottleneckScop.h"

#include "compiler/nas/NeuralStep.h"
#include "compiler/transforms/KernelEdit.h"
#include "polyhedral/IslExtras.h"

#include <algorithm>

namespace nasc::nas {

namespace {

/// The position of `iterator` in `st`, or -1.
int positionOf(const ir::Statement &st, const std::string &iterator) {
  auto it = std::find(st.iterators.begin(), st.iterators.end(), iterator);
  return it == st.iterators.end() ? -1 : static_cast<int>(it - st.iterators.begin());
}

/// The name of iterator `position` of the reduction statement `r`.
const std::string &iteratorName(const Reduction &r, int position) {
  return r.statement->iterators.at(static_cast<size_t>(position));
}

/// `kernel` narrowed to iterator < extent and checked; its reduction statement before and after.
ScopRewrite narrowKernel(isl::ctx ctx, const ir::Kernel &kernel, const std::string &iterator,
                         int64_t extent, const std::string &label) {
  const std::string &reduction = findReduction(kernel).statement->name;
  const poly::Scop scop = poly::buildScop(ctx, kernel);
  const ScopRelations after = narrowScop(scop, iterator, extent);
  checkInsideTensors(after, narrowShapes(kernel, iterator, extent));
  return {label, statementOnly(relationsOf(scop), reduction), statementOnly(after, reduction)};
}

/// The Conv nodes of `graph` other than `node` whose weight has fewer input channels in `narrowed`.
std::vector<std::string> narrowedConsumers(const ir::Graph &graph, const ir::Graph &narrowed,
                                           const std::string &node) {
  std::vector<std::string> consumers;
  for (const ir::Node &conv : graph.nodes)
    if (conv.op_type == "Conv" && conv.name != node &&
        narrowed.shapeOf(conv.inputs.at(1)).at(1) != graph.shapeOf(conv.inputs.at(1)).at(1))
      consumers.push_back(conv.name);
  return consumers;
}

} // namespace

ScopRelations narrowScop(const poly::Scop &scop, const std::string &iterator, int64_t extent) {
  isl::union_set domain = isl::union_set::empty(scop.domain.ctx());
  scop.domain.foreach_set([&](isl::set set) {
    const int dim = poly::dimIndex(set, iterator);
    if (dim >= 0)
      set = set.intersect(dimRange(set.space(), dim, 0, extent));
    domain = domain.unite(isl::union_set(set));
  });
  return {domain, scop.reads.intersect_domain(domain), scop.writes.intersect_domain(domain)};
}

std::map<std::string, ir::Shape> narrowShapes(const ir::Kernel &kernel, const std::string &iterator,
                                              int64_t extent) {
  std::map<std::string, ir::Shape> shapes = tensorShapes(kernel);
  for (const ir::Statement &st : kernel.statements) {
    const int p = positionOf(st, iterator);
    if (p < 0)
      continue;
    compiler::forEachAccess(st, [&](const ir::Access &access) {
      ir::Shape &shape = shapes[kernel.tensors.at(static_cast<size_t>(access.tensor)).name];
      for (size_t d = 0; d < access.index.size(); ++d)
        if (access.index[d].coeffs.at(static_cast<size_t>(p)) != 0)
          shape.at(d) = extent;
    });
  }
  return shapes;
}

std::vector<ScopRewrite> bottleneckRewrite(isl::ctx ctx, const ir::Graph &graph,
                                           const std::string &node, int64_t B) {
  const ir::Graph narrowed = applyNeuralStep(graph, {node, "bottleneck", {B}});
  const ir::Program program = lowerForInference(graph);
  const ir::Kernel &producer = kernelOf(program, node);
  const Reduction r = findReduction(producer);
  std::vector<ScopRewrite> rewrites{
      narrowKernel(ctx, producer, iteratorName(r, r.k), r.K() / B, "producer " + node)};
  for (const std::string &consumer : narrowedConsumers(graph, narrowed, node)) {
    const ir::Kernel &kernel = kernelOf(program, consumer);
    const Reduction c = findReduction(kernel);
    rewrites.push_back(
        narrowKernel(ctx, kernel, iteratorName(c, c.c), r.K() / B, "consumer " + consumer));
  }
  return rewrites;
}

} // namespace nasc::nas
