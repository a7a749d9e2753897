// The Conv node a neural transformation changes: its shapes, group and weight, found by name.
#pragma once

#include "ir/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nasc::nas {

/// A Conv node of a graph with static shapes: X (N, C, ...), W (K, C/group, k...) an initializer
/// that no other node reads, optional bias B (K) an initializer too.
struct ConvLayer {
  size_t node = 0; ///< Index in graph.nodes.
  int64_t C = 0, K = 0, group = 1;
  std::string weight, bias; ///< Initializer names (bias "" when absent).
};

/// The Conv node named `name` in `graph`. `transform` ("group(4)") is for messages. Throws
/// nasc::Error naming the model file when no node has that name, it is not a Conv, or its W (or
/// B) is not an initializer read only by it.
ConvLayer convLayer(const ir::Graph &graph, const std::string &name, const std::string &transform);

/// "model.onnx: node 'conv1' (Conv): group(4): <why>", the message of a refused transformation.
std::string refusal(const ir::Graph &graph, const ir::Node &node, const std::string &transform,
                    const std::string &why);

/// The value a Conv's layer produces: the Conv's output, or, when its only reader is a Concat
/// whose inputs are all such Conv outputs (the parts of seq1 / seq2 / seq3 that replaced one
/// convolution), the Concat's output.
const std::string &layerOutput(const ir::Graph &graph, const ir::Node &conv);

/// A copy of Conv `conv` named `<conv>_<suffix>` writing a new value `<output>_<suffix>` (both
/// fresh names, the value's name reserved in graph.values with an unknown shape), to become one
/// part of it.
ir::Node convPart(ir::Graph &graph, const ir::Node &conv, const std::string &suffix);

/// Replaces graph.nodes[index] (a Conv) by `nodes` (its parts and what they read, in order)
/// followed by a Concat `<conv>_concat` of `partOutputs` on `axis` that writes the Conv's output
/// value, then drops the initializers no node reads any more (ir::removeUnusedInitializers).
void replaceByConcat(ir::Graph &graph, size_t index, std::vector<ir::Node> nodes,
                     const std::vector<std::string> &partOutputs, int64_t axis);

/// The divisors d of `n` with lo <= d <= hi, ascending.
std::vector<int64_t> divisorsBetween(int64_t n, int64_t lo, int64_t hi);

/// The spatial extents of `conv`'s output (OH, OW for a 2-d Conv).
std::vector<int64_t> outputExtents(const ir::Graph &graph, const ConvLayer &conv);

/// Elements of one output channel's slice of a weight of `shape` (K, C', k...): C'·Π k.
int64_t perOutputChannel(const ir::Shape &shape);

} // namespace nasc::nas
