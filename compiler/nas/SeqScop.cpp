#include "compiler/nas/SeqScop.h"

#include "compiler/nas/ConvLayer.h"

namespace nasc::nas {

namespace {

/// `relations` (one statement) restricted to its output channels [begin, end) (iterator `k`).
ScopRelations channelRange(const ScopRelations &relations, int k, int64_t begin, int64_t end) {
  const isl::set domain = relations.domain.as_set();
  const isl::union_set part(domain.intersect(dimRange(domain.space(), k, begin, end)));
  return {part, relations.reads.intersect_domain(part), relations.writes.intersect_domain(part)};
}

std::string partLabel(size_t i, const ChannelPart &part) {
  return "part " + std::to_string(i) + ": channels [" + std::to_string(part.offset) + ", " +
         std::to_string(part.offset + part.count) + "), group " + std::to_string(part.groups);
}

} // namespace

std::vector<ScopRelations> seqScop(const ir::Kernel &kernel, const poly::Scop &scop,
                                   const std::string &weight, const std::vector<SeqPart> &parts) {
  const Reduction r = findReduction(kernel);
  int64_t next = 0;
  for (const SeqPart &part : parts) {
    if (part.channels.offset != next)
      throw Error("kernel '" + kernel.name + "': seq part at channel " +
                  std::to_string(part.channels.offset) + " does not start where the previous " +
                  "ends (" + std::to_string(next) + ")");
    next += part.channels.count;
  }
  if (next != r.K())
    throw Error("kernel '" + kernel.name + "': the seq parts cover " + std::to_string(next) +
                " output channels, not K = " + std::to_string(r.K()));
  const ScopRelations reduction = statementOnly(relationsOf(scop), r.statement->name);
  std::vector<ScopRelations> rewritten;
  for (const SeqPart &part : parts)
    rewritten.push_back(rewriteChannels(reduction, r, part.channels, weight, part.weight));
  return rewritten;
}

std::vector<SeqPart> seqParts(const ir::Graph &graph, const NeuralStep &step) {
  std::vector<SeqPart> parts;
  int64_t offset = 0;
  for (const SplitPart &split : splitParts(graph, step)) {
    const ConvLayer &part = split.layer;
    parts.push_back({{offset, part.K, part.group}, ir::toIdentifier(part.weight)});
    offset += part.K;
  }
  return parts;
}

std::vector<ScopRewrite> seqRewrite(isl::ctx ctx, const ir::Graph &graph, const NeuralStep &step) {
  const std::vector<SeqPart> parts = seqParts(graph, step);
  const ir::Program program = lowerForInference(graph);
  const ir::Kernel &kernel = kernelOf(program, step.node);
  const poly::Scop scop = poly::buildScop(ctx, kernel);
  const Reduction r = findReduction(kernel);
  const std::string &weight = weightOf(kernel, r);
  const std::vector<ScopRelations> after = seqScop(kernel, scop, weight, parts);
  const ScopRelations dense = statementOnly(relationsOf(scop), r.statement->name);
  std::vector<ScopRewrite> rewrites;
  for (size_t i = 0; i < parts.size(); ++i) {
    const ChannelPart &part = parts[i].channels;
    std::map<std::string, ir::Shape> shapes = tensorShapes(kernel);
    ir::Shape packed = shapes.at(weight);
    packed[0] = part.count;
    packed[1] = r.C() / part.groups;
    shapes[parts[i].weight] = packed;
    checkInsideTensors(after[i], shapes);
    rewrites.push_back({partLabel(i, part),
                        channelRange(dense, r.k, part.offset, part.offset + part.count), after[i]});
  }
  return rewrites;
}

} // namespace nasc::nas
