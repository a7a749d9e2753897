// Training-mode forward and reverse-mode backward of a Graph with a cross-entropy loss, in the
// Eigen reference executor (for zero-cost proxies such as the Fisher Potential).
#pragma once

#include "ir/Graph.h"

#include <map>
#include <string>
#include <vector>

namespace nasc::runtime {

/// Values and gradients of one training step (no weight update).
struct TrainingStep {
  /// Graph inputs and every node output, by value name (initializers excluded).
  std::map<std::string, ir::Tensor> values;
  /// dL/dv for every float value that depends on a graph input (same shapes as `values`).
  std::map<std::string, ir::Tensor> gradients;
  /// Mean cross-entropy over the batch.
  double loss = 0;
};

/// Mean cross-entropy of `logits` (N, classes) against `labels` (N entries in [0, classes)), L =
/// 1/N Σ_n (logsumexp(z_n) - z_n[label_n]) as PyTorch's CrossEntropyLoss (reduction mean); stores
/// dL/dlogits = (softmax(z) - onehot) / N in `dlogits`. Throws nasc::Error for another shape or a
/// label out of range.
double crossEntropy(const ir::Tensor &logits, const std::vector<int64_t> &labels,
                    ir::Tensor &dlogits);

/// Runs `graph` forward in training mode on `inputs` (one float32 tensor per graph input; the batch
/// size may differ from the graph's declared one), computes crossEntropy of its single output
/// against `labels`, and back-propagates dL/dv to every value depending on the inputs. Every
/// BatchNormalization runs in training mode (batch mean and biased variance, PyTorch's train-mode
/// normalisation) whatever its training_mode attribute; Dropout is the identity. Ops: Conv,
/// BatchNormalization, Relu, Add (numpy broadcasting), Concat, MaxPool, AveragePool,
/// GlobalAveragePool, Flatten, Reshape, Gemm, Identity, Dropout, Constant. Throws nasc::Error
/// naming the graph source and the node and op for an unsupported op, for a gradient needed w.r.t.
/// a weight-like input (e.g. Gemm's B computed from the input), and any error of the forward
/// kernels; naming the input when one is missing; when the graph has not exactly one output.
TrainingStep runTrainingStep(const ir::Graph &graph,
                             const std::map<std::string, ir::Tensor> &inputs,
                             const std::vector<int64_t> &labels);

} // namespace nasc::runtime
