// The Fisher Potential (or another zero-cost proxy) of a model file as `nasc fisher` measures it:
// data batch, BN policy, weights policy and the mean / standard deviation over initialisations.
#pragma once

#include "compiler/nas/FashionMnist.h"
#include "compiler/nas/InitWeights.h"
#include "compiler/nas/ZeroCostProxy.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nasc::nas {

/// How to measure (defaults are the issue #4 defaults).
struct FisherOptions {
  int64_t batch = 128;     ///< N images, overriding the model's batch dimension.
  uint64_t seed = 0;       ///< Seed of the first initialisation; run k uses seed + k.
  int seeds = 3;           ///< Initialisations averaged with initWeights (1 with model weights).
  bool initWeights = true; ///< true: fresh He init (InitWeights.h); false: model's own.
  bool insertBn = true;    ///< true: insertBatchNorm before measuring (InsertBatchNorm.h).
  std::string dataDir = kFashionMnistDir;
  Proxy proxy = Proxy::Fisher; ///< What to measure (ZeroCostProxy.h).
  int threads = 1; ///< Runs measured at the same time (each on its own copy); values unchanged.
  HeNormalCache *initCache = nullptr; ///< Draws of initWeights reused / recorded (not owned).
};

/// Mean and population standard deviation over the runs.
struct MeanStd {
  double mean = 0, std = 0;
};

/// Mean and population standard deviation of `values` (not empty).
MeanStd meanStd(const std::vector<double> &values);

/// The summary of runs measured as natural logs x_k = ln v_k (synflow, v_k >= 0, −infinity for
/// 0), without exponentiating them: mean = ln of the arithmetic mean of the v_k, ln((1/K) Σ_k
/// e^x_k) by log-sum-exp (the value the mean of the linear values had, whatever its size; −infinity
/// when every v_k is 0); std = population standard deviation of the x_k (a spread in natural log;
/// 0 when every v_k is 0, +infinity when some but not all are). `logs` not empty.
MeanStd logMeanStd(const std::vector<double> &logs);

/// The data shape (N = `images`, C, H, W) and the class count (dim 1 of the output) of `graph`,
/// which must have one rank-4 input and one rank-2 output (nasc::Error naming the graph source
/// otherwise).
std::pair<ir::Shape, int64_t> dataShape(const ir::Graph &graph, int64_t images);

/// Per-layer (keyed by the Conv output value, in graph order; none for jacob_cov) and total values
/// over the runs: meanStd of the runs' values, for synflow (whose values are natural logs,
/// Synflow.h) logMeanStd.
struct FisherMeasurement {
  std::vector<std::string> layers;
  std::vector<MeanStd> layerValues;
  MeanStd total;
  std::vector<double> totals; ///< Total of each run, in seed order (synflow: ln).
};

/// The model at `path` as the capacity measurements take it: ir::loadModelRaw, then
/// ir::prepareForTraining (BatchNormalization kept, static shapes). Throws every error of both.
ir::Graph loadForTraining(const std::string &path);

/// Measures `graph` (prepared for training, as loadForTraining returns it; not changed): on a
/// copy, optionally inserts BNs, builds the Fashion-MNIST batch for its input (N = options.batch,
/// C, H, W from the model's single rank-4 input; classes = dim 1 of its single (N, classes)
/// output; not read for synflow, which is data-free, though its runs still differ by their He
/// initialisations), and measures fisherPotential once per run
/// (options.proxy through measureProxy, fisherPotential by default): options.seeds runs
/// re-initialised with seed, seed + 1, ... when options.initWeights, else one run on the model's
/// weights; up to options.threads runs at a time, each on its own copy of the graph. Throws
/// nasc::Error for a model without one rank-4 input or one rank-2 output, batch, seeds or threads
/// < 1, and every error of the data batch and the proxy.
FisherMeasurement measureFisher(const ir::Graph &graph, const FisherOptions &options);

/// measureFisher of the model at `modelPath` (loadForTraining); also throws the loader's errors.
FisherMeasurement measureFisher(const std::string &modelPath, const FisherOptions &options);

} // namespace nasc::nas
