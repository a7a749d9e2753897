// The short-training capacity proxy `train_loss` (docs/capacity.md, "Capacity gate"): the training
// loss after a few plain SGD steps from a seeded He initialisation on the Fashion-MNIST stream.
#pragma once

#include "compiler/nas/FashionMnist.h"
#include "compiler/nas/FisherMeasurement.h"
#include "ir/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nasc::nas {

/// How to train. The defaults (64 images, 20 steps, lr 0.1, last 5 steps) keep a small CNN's
/// measurement to a few seconds while its loss already falls below ln(classes), the more the wider
/// the network (in PyTorch, a 2-conv CNN of widths 2/2, 8/16 and 32/64 reaches 2.31, 2.29 and 1.91
/// with lr 0.1, against 2.32, 2.37 and 2.02 with lr 0.05).
struct ShortTrainingOptions {
  int64_t batch = 64; ///< Images per SGD step, overriding the model's batch dimension.
  int steps = 20;     ///< k, the number of SGD steps.
  double lr = 0.1;    ///< Learning rate of plain SGD (no momentum, no weight decay).
  int window = 5;     ///< The loss reported is the mean of the last `window` step losses.
  uint64_t seed = 0;  ///< Seed of the first He initialisation; run r uses seed + r.
  int seeds = 1;      ///< Initialisations averaged.
  std::string dataDir = kFashionMnistDir;
  HeNormalCache *initCache = nullptr; ///< Draws of initWeights reused / recorded (not owned).
};

/// Trains `graph` in place with `steps` plain SGD steps, W ← W − lr · dL/dW: step i (0-based)
/// runs runtime::runTrainingStep (training-mode BN with batch statistics, mean cross-entropy) on
/// images [i·batch, (i+1)·batch) of `stream` (N, C, H, W) and their labels, then updates every
/// initializer that gets a weight gradient (runtime::TrainingStep::weightGradients: Conv W, Gemm
/// B and row-bias C, MatMul A and B). Conv biases and BN scale / B stay fixed (behind a
/// training-mode BN a Conv bias has zero gradient). Returns the loss of every step, computed by
/// that step's forward pass before its update, in double. Throws nasc::Error when batch or steps is
/// < 1 or `stream` holds fewer than steps · batch images or labels, and every error of the training
/// step.
std::vector<double> sgdLosses(ir::Graph &graph, const ImageBatch &stream, int64_t batch, int steps,
                              double lr);

/// The mean of the last `window` entries of `losses` (all of them when there are fewer). Throws
/// nasc::Error when window < 1 or `losses` is empty.
double lastStepsMean(const std::vector<double> &losses, int window);

/// train_loss of `graph` (prepared for training, as loadForTraining returns it; not changed): on a
/// copy with insertBatchNorm, reads the first steps · batch Fashion-MNIST training images shaped
/// for its input (fashionMnistBatch: N x C x H x W from the single rank-4 input, classes from the
/// single (N, classes) output) and, for each of options.seeds runs, re-initialises the weights
/// (initWeights with seed + run), trains with sgdLosses and takes lastStepsMean. Returns the mean
/// and population standard deviation over the runs. Throws nasc::Error for a model without one
/// rank-4 input or one rank-2 output, for non-positive options, and every error of the data and
/// the training.
MeanStd measureShortTraining(const ir::Graph &graph, const ShortTrainingOptions &options);

/// measureShortTraining of the model at `modelPath` (loadForTraining); also throws the loader's
/// errors.
MeanStd measureShortTraining(const std::string &modelPath, const ShortTrainingOptions &options);

} // namespace nasc::nas
