// Training-mode forward and reverse-mode backward of a Graph with a cross-entropy loss, in the
// Eigen reference executor (for zero-cost proxies such as the Fisher Potential).
#pragma once

#include "ir/Graph.h"

#include <functional>
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
  /// dL/dW of every Conv weight W and Gemm weight B that is an initializer, and of every Gemm bias
  /// C that is an initializer of (cols) or (1, cols) elements, by initializer name (summed over
  /// the nodes sharing it); filled only when asked for (weightGradients). Conv biases and BN
  /// scale / B get none.
  std::map<std::string, ir::Tensor> weightGradients;
  /// The loss (mean cross-entropy over the batch for runTrainingStep).
  double loss = 0;
};

/// A scalar loss of the graph's single output: returns L and stores dL/doutput (the output's shape)
/// in its second argument; may throw nasc::Error.
using OutputLoss = std::function<double(const ir::Tensor &output, ir::Tensor &doutput)>;

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
/// GlobalAveragePool, Flatten, Reshape, Gemm, Identity, Dropout, Constant, Slice, Resize (nearest).
/// Throws nasc::Error
/// naming the graph source and the node and op for an unsupported op, for a gradient needed w.r.t.
/// a weight-like input (e.g. Gemm's B computed from the input), and any error of the forward
/// kernels; naming the input when one is missing; when the graph has not exactly one output. With
/// `weightGradients`, also the weight gradients of TrainingStep::weightGradients (Conv W:
/// convWeightGradient; Gemm: dB' = alpha A'^T dY transposed back with transB, dC = beta Σ_rows dY).
TrainingStep runTrainingStep(const ir::Graph &graph,
                             const std::map<std::string, ir::Tensor> &inputs,
                             const std::vector<int64_t> &labels, bool weightGradients = false);

/// The forward half of runTrainingStep: graph inputs and every node output by value name (BN with
/// batch statistics); no loss, no backward. Same errors as runTrainingStep's forward.
std::map<std::string, ir::Tensor>
runTrainingForward(const ir::Graph &graph, const std::map<std::string, ir::Tensor> &inputs);

/// runTrainingStep with any scalar `loss` of the single output instead of the cross-entropy (e.g.
/// synflow's R = Σ output); same ops, BN policy and errors (a loss error is prefixed with the graph
/// source).
TrainingStep runForwardBackward(const ir::Graph &graph,
                                const std::map<std::string, ir::Tensor> &inputs,
                                const OutputLoss &loss, bool weightGradients);

} // namespace nasc::runtime
