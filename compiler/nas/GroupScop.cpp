#include "compiler/nas/GroupScop.h"

namespace nasc::nas {

ScopRelations groupScop(const ir::Kernel &kernel, const poly::Scop &scop, const std::string &weight,
                        int64_t G) {
  const Reduction r = findReduction(kernel);
  return rewriteChannels(relationsOf(scop), r, {0, r.K(), G}, weight, weight);
}

ScopRewrite groupRewrite(isl::ctx ctx, const ir::Graph &graph, const std::string &node, int64_t G) {
  const ir::Program program = lowerForInference(graph);
  const ir::Kernel &kernel = kernelOf(program, node);
  const poly::Scop scop = poly::buildScop(ctx, kernel);
  const Reduction reduction = findReduction(kernel);
  const std::string &weight = weightOf(kernel, reduction);
  std::map<std::string, ir::Shape> shapes = tensorShapes(kernel);
  shapes[weight][1] /= G;
  const ScopRelations grouped = groupScop(kernel, scop, weight, G);
  checkInsideTensors(grouped, shapes);
  return {node, statementOnly(relationsOf(scop), reduction.statement->name),
          statementOnly(grouped, reduction.statement->name)};
}

} // namespace nasc::nas
