// Folding of inference BatchNormalization into the Conv that produces its input.
#pragma once

#include "ir/Graph.h"

namespace nasc::ir {

/// Folds each BatchNormalization whose input X is produced by a Conv that has no other reader
/// (X not a graph output) and whose weights (Conv W and B, BN scale, B, mean, var) are all
/// initializers: with s = scale / sqrt(var + epsilon) (ONNX BatchNormalization, inference),
///   W'[k, ...] = W[k, ...] * s[k],   B'[k] = (B[k] - mean[k]) * s[k] + bn_B[k]   (B = 0 if
///   absent).
/// The Conv then writes the BN's output under new initializers "<bn name>.folded_W/_B"; the BN
/// node is removed and unused initializers dropped. Other BNs stay for the lowering.
/// Arithmetic in double, rounded to float32 once.
void foldBatchNorm(Graph &graph);

} // namespace nasc::ir
