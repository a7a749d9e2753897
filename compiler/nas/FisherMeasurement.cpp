#include "compiler/nas/FisherMeasurement.h"

#include "compiler/nas/InitWeights.h"
#include "compiler/nas/InsertBatchNorm.h"
#include "ir/Error.h"
#include "ir/ParallelWork.h"
#include "ir/import/ModelLoader.h"
#include "ir/passes/Passes.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nasc::nas {

MeanStd meanStd(const std::vector<double> &values) {
  MeanStd result;
  for (double v : values)
    result.mean += v / static_cast<double>(values.size());
  for (double v : values)
    result.std += (v - result.mean) * (v - result.mean) / static_cast<double>(values.size());
  result.std = std::sqrt(result.std);
  return result;
}

MeanStd logMeanStd(const std::vector<double> &logs) {
  const double largest = *std::max_element(logs.begin(), logs.end());
  if (std::isinf(largest))
    return {largest, 0};
  double sum = 0;
  bool someZero = false;
  for (double v : logs) {
    sum += std::exp(v - largest);
    someZero = someZero || std::isinf(v);
  }
  MeanStd result = meanStd(logs);
  result.mean = largest + std::log(sum / static_cast<double>(logs.size()));
  if (someZero)
    result.std = std::numeric_limits<double>::infinity();
  return result;
}

std::pair<ir::Shape, int64_t> dataShape(const ir::Graph &graph, int64_t images) {
  if (graph.inputs.size() != 1 || graph.shapeOf(graph.inputs[0]).size() != 4)
    throw Error(graph.source + ": the capacity proxies need one N x C x H x W input");
  if (graph.outputs.size() != 1 || graph.shapeOf(graph.outputs[0]).size() != 2)
    throw Error(graph.source + ": the capacity proxies need one (N, classes) output");
  ir::Shape shape = graph.shapeOf(graph.inputs[0]);
  shape[0] = images;
  return {shape, graph.shapeOf(graph.outputs[0])[1]};
}

ir::Graph loadForTraining(const std::string &path) {
  ir::Graph graph = ir::loadModelRaw(path);
  ir::prepareForTraining(graph);
  return graph;
}

namespace {

/// The proxy of run `run`: on a copy of `graph` with BNs inserted and re-initialised with
/// seed + run as options say, or on `graph` itself when they ask for neither.
ProxyScore measureRun(const ir::Graph &graph, const FisherOptions &options, const ImageBatch &batch,
                      int run) {
  if (!options.insertBn && !options.initWeights)
    return measureProxy(options.proxy, graph, batch.images, batch.labels);
  ir::Graph prepared = graph;
  if (options.insertBn)
    insertBatchNorm(prepared);
  if (options.initWeights)
    initWeights(prepared, options.seed + static_cast<uint64_t>(run), options.initCache);
  return measureProxy(options.proxy, prepared, batch.images, batch.labels);
}

/// Every run's proxy, in run order, computed by up to options.threads threads; rethrows the
/// error of the first run that failed.
std::vector<ProxyScore> measureRuns(const ir::Graph &graph, const FisherOptions &options,
                                    const ImageBatch &batch) {
  const int runs = options.initWeights ? options.seeds : 1;
  std::vector<ProxyScore> results(static_cast<size_t>(runs));
  ir::forEachInParallel(results.size(), options.threads, [&](size_t run) {
    results[run] = measureRun(graph, options, batch, static_cast<int>(run));
  });
  return results;
}

} // namespace

FisherMeasurement measureFisher(const ir::Graph &graph, const FisherOptions &options) {
  if (options.batch < 1 || options.seeds < 1 || options.threads < 1)
    throw Error("fisher: --batch, --seeds and --threads must be positive");
  const auto [shape, classes] = dataShape(graph, options.batch);
  const ImageBatch batch = options.proxy == Proxy::Synflow
                               ? ImageBatch{}
                               : fashionMnistBatch(shape, classes, options.dataDir);
  const std::vector<ProxyScore> results = measureRuns(graph, options, batch);
  const auto summary = options.proxy == Proxy::Synflow ? logMeanStd : meanStd;
  FisherMeasurement measurement;
  for (size_t layer = 0; layer < results[0].layers.size(); ++layer) {
    std::vector<double> values;
    for (const ProxyScore &result : results)
      values.push_back(result.layers[layer].value);
    measurement.layers.push_back(results[0].layers[layer].conv);
    measurement.layerValues.push_back(summary(values));
  }
  for (const ProxyScore &result : results)
    measurement.totals.push_back(result.total);
  measurement.total = summary(measurement.totals);
  return measurement;
}

FisherMeasurement measureFisher(const std::string &modelPath, const FisherOptions &options) {
  return measureFisher(loadForTraining(modelPath), options);
}

} // namespace nasc::nas
