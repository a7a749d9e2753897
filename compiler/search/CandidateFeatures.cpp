#include "compiler/search/CandidateFeatures.h"

#include "compiler/nas/ModelCost.h"
#include "compiler/nas/NeuralRegistry.h"
#include "compiler/search/SearchSpace.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace nasc::search {

namespace {

bool hasList(const nas::NeuralTransform &t) {
  return !t.parameters.empty() && t.parameters.back().isList;
}

/// w_t: the count, one value per scalar parameter, two for a list parameter.
size_t blockWidth(const nas::NeuralTransform &t) {
  return 1 + t.parameters.size() + (hasList(t) ? 1 : 0);
}

/// W: the values of one Conv's steps.
size_t registryWidth() {
  size_t width = 0;
  for (const nas::NeuralTransform &t : nas::neuralTransforms())
    width += blockWidth(t);
  return width;
}

/// Where the block of `t` starts among a Conv's W values.
size_t blockOffset(const nas::NeuralTransform &t) {
  size_t offset = 0;
  for (const nas::NeuralTransform &other : nas::neuralTransforms()) {
    if (&other == &t)
      break;
    offset += blockWidth(other);
  }
  return offset;
}

/// Adds `step`'s count and log2 arguments to the W values at `convValues`. Throws nasc::Error for
/// an unknown transformation or an argument count it does not take.
void addStepValues(const nas::NeuralStep &step, float *convValues) {
  const std::string context = "candidate features: step '" + step.toString() + "'";
  const nas::NeuralTransform &t = nas::findNeuralTransform(step.transform, context);
  t.checkArgumentCount(step.args.size(), context);
  float *block = convValues + blockOffset(t);
  *block++ += 1;
  size_t arg = 0;
  for (const compiler::ArgumentSpec &p : t.parameters)
    if (!p.isList)
      *block++ += static_cast<float>(std::log2(step.args[arg++]));
  if (!hasList(t))
    return;
  const size_t entries = step.args.size() - arg;
  double logSum = 0;
  for (; arg < step.args.size(); ++arg)
    logSum += std::log2(step.args[arg]);
  block[0] += static_cast<float>(std::log2(entries));
  block[1] += static_cast<float>(logSum / static_cast<double>(entries));
}

} // namespace

CandidateFeatures::CandidateFeatures(const ir::Graph &original)
    : convs_(searchableConvs(original)) {
  const nas::ModelCost cost = nas::modelCost(original);
  std::map<std::string, double> flops;
  for (const nas::NodeCost &node : cost.nodes)
    flops[node.node] = node.flops;
  for (const std::string &conv : convs_)
    shares_.push_back(cost.flops > 0 ? static_cast<float>(flops[conv] / cost.flops) : 0.0f);
}

std::vector<float> CandidateFeatures::operator()(const std::vector<nas::NeuralStep> &steps) const {
  const size_t width = registryWidth(), stride = 1 + width;
  std::vector<float> row((convs_.size() + 1) * stride, 0.0f);
  for (size_t i = 0; i < convs_.size(); ++i)
    row[i * stride] = shares_[i];
  std::set<std::string> touched;
  for (const nas::NeuralStep &step : steps) {
    const auto conv = std::find(convs_.begin(), convs_.end(), step.node);
    if (conv == convs_.end())
      throw Error("candidate features: step '" + step.toString() + "': node '" + step.node +
                  "' is not a searchable Conv of the original");
    addStepValues(step, &row[static_cast<size_t>(conv - convs_.begin()) * stride + 1]);
    touched.insert(step.node);
  }
  float *totals = &row[convs_.size() * stride];
  for (size_t i = 0; i < convs_.size(); ++i)
    for (size_t j = 0; j < width; ++j)
      totals[j] += shares_[i] * row[i * stride + 1 + j];
  row.back() = static_cast<float>(touched.size());
  return row;
}

} // namespace nasc::search
