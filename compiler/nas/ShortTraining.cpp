#include "compiler/nas/ShortTraining.h"

#include "compiler/nas/InitWeights.h"
#include "compiler/nas/InsertBatchNorm.h"
#include "ir/Error.h"
#include "runtime/reference/Training.h"

#include <algorithm>
#include <cmath>

namespace nasc::nas {

namespace {

/// Images [first, first + count) of `stream` and their labels.
ImageBatch slice(const ImageBatch &stream, int64_t first, int64_t count) {
  const ir::Shape &shape = stream.images.shape;
  const int64_t image = ir::numElements(shape) / shape[0];
  ImageBatch part;
  part.images.shape = {count, shape[1], shape[2], shape[3]};
  part.images.f.assign(stream.images.f.begin() + first * image,
                       stream.images.f.begin() + (first + count) * image);
  part.labels.assign(stream.labels.begin() + first, stream.labels.begin() + first + count);
  return part;
}

/// W ← W − lr · dW for every weight gradient of `step`.
void sgdUpdate(ir::Graph &graph, const runtime::TrainingStep &step, double lr) {
  for (const auto &[name, gradient] : step.weightGradients) {
    std::vector<float> &w = graph.initializers.at(name).f;
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = static_cast<float>(w[i] - lr * gradient.f[i]);
  }
}

} // namespace

std::vector<double> sgdLosses(ir::Graph &graph, const ImageBatch &stream, int64_t batch, int steps,
                              double lr) {
  if (batch < 1 || steps < 1)
    throw Error(graph.source + ": short training needs batch >= 1 and steps >= 1");
  const int64_t needed = batch * steps;
  if (stream.images.shape.size() != 4 || stream.images.shape[0] < needed ||
      static_cast<int64_t>(stream.labels.size()) < needed)
    throw Error(graph.source + ": short training needs " + std::to_string(needed) +
                " images and labels, got images " + ir::shapeToString(stream.images.shape) +
                " and " + std::to_string(stream.labels.size()) + " labels");
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) {
    const ImageBatch part = slice(stream, i * batch, batch);
    const runtime::TrainingStep step =
        runtime::runTrainingStep(graph, {{graph.inputs.at(0), part.images}}, part.labels, true);
    sgdUpdate(graph, step, lr);
    losses.push_back(step.loss);
  }
  return losses;
}

double lastStepsMean(const std::vector<double> &losses, int window) {
  if (window < 1 || losses.empty())
    throw Error("short training: the loss window must be >= 1 and there must be a step");
  const size_t count = std::min(losses.size(), static_cast<size_t>(window));
  double sum = 0;
  for (size_t k = losses.size() - count; k < losses.size(); ++k)
    sum += losses[k];
  return sum / static_cast<double>(count);
}

MeanStd measureShortTraining(const ir::Graph &graph, const ShortTrainingOptions &options) {
  if (options.batch < 1 || options.steps < 1 || options.window < 1 || options.seeds < 1 ||
      !(options.lr > 0))
    throw Error(graph.source +
                ": short training needs positive batch, steps, window, seeds and lr");
  ir::Graph model = graph;
  insertBatchNorm(model);
  const auto [shape, classes] = dataShape(model, options.batch * options.steps);
  const ImageBatch stream = fashionMnistBatch(shape, classes, options.dataDir);
  std::vector<double> runs;
  for (int run = 0; run < options.seeds; ++run) {
    ir::Graph trained = model;
    initWeights(trained, options.seed + static_cast<uint64_t>(run), options.initCache);
    runs.push_back(lastStepsMean(
        sgdLosses(trained, stream, options.batch, options.steps, options.lr), options.window));
  }
  return meanStd(runs);
}

MeanStd measureShortTraining(const std::string &modelPath, const ShortTrainingOptions &options) {
  return measureShortTraining(loadForTraining(modelPath), options);
}

} // namespace nasc::nas
