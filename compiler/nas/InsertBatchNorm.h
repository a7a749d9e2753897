// Graph rewrite for `nasc fisher --bn insert`: a fresh BatchNormalization after every Conv.
#pragma once

#include "ir/Graph.h"

namespace nasc::nas {

/// Puts a BatchNormalization (scale γ = 1, B β = 0, input_mean 0, input_var 1, epsilon 1e-5) after
/// every Conv layer whose output (nas::layerOutput: the Conv's, or the Concat's joining the parts
/// of a seq1 / seq2 / seq3 layer, so one BN normalises the whole layer) no BatchNormalization
/// reads (models exported for inference have BN folded into their convs). The producer keeps
/// its output value name; the new node "<producer>_bn" writes "<output>_bn" and every former
/// reader of the output (nodes and graph outputs) reads that instead. Run in training mode
/// (runtime/reference/Training.h) the new BN normalises with batch statistics; its
/// running-statistics inputs only make the node valid ONNX. Returns the number of nodes inserted.
/// Throws nasc::Error naming the node when a Conv's weight W is not an initializer of rank >= 3
/// (its output channel count is W's first dim).
int insertBatchNorm(ir::Graph &graph);

} // namespace nasc::nas
