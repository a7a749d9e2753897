#include "compiler/nas/FisherMeasurement.h"

#include "compiler/nas/InitWeights.h"
#include "compiler/nas/InsertBatchNorm.h"
#include "ir/Error.h"
#include "ir/import/ModelLoader.h"
#include "ir/passes/Passes.h"

#include <cmath>

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

FisherMeasurement measureFisher(const ir::Graph &model, const FisherOptions &options) {
  if (options.batch < 1 || options.seeds < 1)
    throw Error("fisher: --batch and --seeds must be positive");
  ir::Graph graph = model;
  if (options.insertBn)
    insertBatchNorm(graph);
  const auto [shape, classes] = dataShape(graph, options.batch);
  const ImageBatch batch = options.proxy == Proxy::Synflow
                               ? ImageBatch{}
                               : fashionMnistBatch(shape, classes, options.dataDir);
  const int runs = options.initWeights ? options.seeds : 1;
  std::vector<ProxyScore> results;
  for (int run = 0; run < runs; ++run) {
    if (options.initWeights)
      initWeights(graph, options.seed + static_cast<uint64_t>(run));
    results.push_back(measureProxy(options.proxy, graph, batch.images, batch.labels));
  }
  FisherMeasurement measurement;
  for (size_t layer = 0; layer < results[0].layers.size(); ++layer) {
    std::vector<double> values;
    for (const ProxyScore &result : results)
      values.push_back(result.layers[layer].value);
    measurement.layers.push_back(results[0].layers[layer].conv);
    measurement.layerValues.push_back(meanStd(values));
  }
  for (const ProxyScore &result : results)
    measurement.totals.push_back(result.total);
  measurement.total = meanStd(measurement.totals);
  return measurement;
}

FisherMeasurement measureFisher(const std::string &modelPath, const FisherOptions &options) {
  return measureFisher(loadForTraining(modelPath), options);
}

} // namespace nasc::nas
