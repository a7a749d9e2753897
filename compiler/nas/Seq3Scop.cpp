#include "compiler/nas/Seq3Scop.h"

#include "compiler/nas/ConvLayer.h"

namespace nasc::nas {

namespace {

/// The reduction statement of `relations` restricted to output rows [begin, end), its accesses
/// to `weight` renamed to `renamed`.
ScopRelations stripOf(const ScopRelations &relations, const Reduction &r, const Seq3Strip &strip,
                      const std::string &weight, const std::string &renamed) {
  const isl::space space = statementDomain(relations, r.statement->name).space();
  const isl::space elements = tensorSpace(space.ctx(), weight, r.weightRank());
  const isl::map rename = tensorMap(isl::multi_aff::identity_on_domain(elements), renamed);
  return rewriteStatement(relations, isl::multi_aff::identity_on_domain(space),
                          dimRange(space, r.k + 1, strip.begin, strip.end), isl::union_map(rename));
}

/// Throws unless `strips` tile [0, rows) in order.
void checkTiling(const ir::Kernel &kernel, const std::vector<Seq3Strip> &strips, int64_t rows) {
  int64_t next = 0;
  for (const Seq3Strip &strip : strips) {
    if (strip.begin != next || strip.end <= strip.begin)
      throw Error("kernel '" + kernel.name + "': seq3 strip [" + std::to_string(strip.begin) +
                  ", " + std::to_string(strip.end) + ") does not start where the previous ends (" +
                  std::to_string(next) + ") or is empty");
    next = strip.end;
  }
  if (next != rows)
    throw Error("kernel '" + kernel.name + "': the seq3 strips cover " + std::to_string(next) +
                " output rows, not " + std::to_string(rows));
}

std::string stripLabel(size_t i, const Seq3Strip &strip) {
  return "strip " + std::to_string(i) + ": rows [" + std::to_string(strip.begin) + ", " +
         std::to_string(strip.end) + ")";
}

} // namespace

std::vector<ScopRelations> seq3Scop(const ir::Kernel &kernel, const poly::Scop &scop,
                                    const std::string &weight,
                                    const std::vector<Seq3Strip> &strips) {
  const Reduction r = findReduction(kernel);
  if (r.c == r.k + 1)
    throw Error("kernel '" + kernel.name + "' has no output row iterator to split");
  checkTiling(kernel, strips, r.statement->extents.at(static_cast<size_t>(r.k + 1)));
  const ScopRelations reduction = statementOnly(relationsOf(scop), r.statement->name);
  std::vector<ScopRelations> rewritten;
  for (const Seq3Strip &strip : strips)
    rewritten.push_back(stripOf(reduction, r, strip, weight, strip.weight));
  return rewritten;
}

std::vector<Seq3Strip> seq3Strips(const ir::Graph &graph, const std::string &node, int64_t P) {
  std::vector<Seq3Strip> strips;
  int64_t row = 0;
  for (const SplitPart &strip : splitParts(graph, {node, "seq3", {P}})) {
    const int64_t rows = strip.output.at(2);
    strips.push_back({row, row + rows, ir::toIdentifier(strip.layer.weight)});
    row += rows;
  }
  return strips;
}

std::vector<ScopRewrite> seq3Rewrite(isl::ctx ctx, const ir::Graph &graph, const std::string &node,
                                     int64_t P) {
  const std::vector<Seq3Strip> strips = seq3Strips(graph, node, P);
  const ir::Program program = lowerForInference(graph);
  const ir::Kernel &kernel = kernelOf(program, node);
  const poly::Scop scop = poly::buildScop(ctx, kernel);
  const Reduction r = findReduction(kernel);
  const std::string &weight = weightOf(kernel, r);
  const std::vector<ScopRelations> after = seq3Scop(kernel, scop, weight, strips);
  const ScopRelations dense = statementOnly(relationsOf(scop), r.statement->name);
  std::map<std::string, ir::Shape> shapes = tensorShapes(kernel);
  std::vector<ScopRewrite> rewrites;
  for (size_t i = 0; i < strips.size(); ++i) {
    shapes[strips[i].weight] = shapes.at(weight);
    checkInsideTensors(after[i], shapes);
    rewrites.push_back(
        {stripLabel(i, strips[i]), stripOf(dense, r, strips[i], weight, weight), after[i]});
  }
  return rewrites;
}

} // namespace nasc::nas
