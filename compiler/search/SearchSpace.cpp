#include "compiler/search/SearchSpace.h"

#include "compiler/nas/ConvLayer.h"
#include "compiler/nas/NeuralRegistry.h"

#include <algorithm>

namespace nasc::search {

namespace {

/// Whether nas::convLayer accepts Conv `node` (its weight an initializer only it reads).
bool transformable(const ir::Graph &graph, const ir::Node &node) {
  if (node.op_type != "Conv")
    return false;
  try {
    nas::convLayer(graph, node.name, "search");
    return true;
  } catch (const Error &) {
    return false;
  }
}

/// Draws a step for `node` of `candidate.graph` and adds it (addStep); false when the Conv offers
/// none or the rewrite refused it (the reason kept).
bool drawStep(Candidate &candidate, const std::string &node, std::mt19937_64 &rng,
              const std::vector<std::string> &transforms) {
  const std::vector<nas::NeuralStep> choices = stepChoices(candidate.graph, node, transforms);
  return !choices.empty() && addStep(candidate, choices[uniformIndex(rng, choices.size())]);
}

bool isTransformableConv(const ir::Graph &graph, const std::string &name) {
  for (const ir::Node &node : graph.nodes)
    if (node.name == name)
      return transformable(graph, node);
  return false;
}

} // namespace

std::vector<std::string> searchableConvs(const ir::Graph &graph) {
  std::vector<std::string> names;
  for (const ir::Node &node : graph.nodes)
    if (transformable(graph, node))
      names.push_back(node.name);
  return names;
}

std::vector<nas::NeuralStep> stepChoices(const ir::Graph &graph, const std::string &node,
                                         const std::vector<std::string> &transforms) {
  const nas::ConvLayer conv = nas::convLayer(graph, node, "search");
  std::vector<nas::NeuralStep> steps;
  for (const nas::NeuralTransform &t : nas::neuralTransforms())
    if (transforms.empty() ||
        std::find(transforms.begin(), transforms.end(), t.name) != transforms.end())
      for (const std::vector<int64_t> &args : t.choices(graph, conv))
        steps.push_back({node, t.name, args});
  return steps;
}

double uniform(std::mt19937_64 &rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

size_t uniformIndex(std::mt19937_64 &rng, size_t count) {
  return static_cast<size_t>(uniform(rng) * static_cast<double>(count));
}

bool addStep(Candidate &candidate, const nas::NeuralStep &step) {
  try {
    candidate.graph = nas::applyNeuralStep(candidate.graph, step);
  } catch (const nas::RefusedTransformation &refused) {
    candidate.refusals.push_back(refused.what());
    return false;
  }
  candidate.steps.push_back(step);
  return true;
}

Candidate sampleCandidate(const ir::Graph &original, std::mt19937_64 &rng,
                          const std::vector<std::string> &transforms) {
  Candidate candidate{{}, original, {}};
  const double density = uniform(rng);
  for (const std::string &node : searchableConvs(original)) {
    if (uniform(rng) >= density || !drawStep(candidate, node, rng, transforms))
      continue;
    if (uniform(rng) < density / 2 && isTransformableConv(candidate.graph, node))
      drawStep(candidate, node, rng, transforms);
  }
  return candidate;
}

std::mt19937_64 candidateRng(uint64_t seed, int64_t index) {
  std::seed_seq sequence{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                         static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32)};
  return std::mt19937_64(sequence);
}

} // namespace nasc::search
