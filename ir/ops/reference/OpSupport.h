// Shared checks of the reference executor's op kernels: errors naming the node, input access.
#pragma once

#include "ir/Graph.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nasc::ir::reference {

/// Tensors of a node's inputs in the order of Node::inputs; nullptr for an omitted optional
/// input ("" in Node::inputs) and for inputs past the end of Node::inputs.
using OpInputs = std::vector<const ir::Tensor *>;

/// Tensors a node produces, in the order of Node::outputs.
using OpOutputs = std::vector<ir::Tensor>;

/// dL/d(input k) of a node, indexed like Node::inputs; nullopt for inputs without a gradient
/// (weights, biases, shape inputs).
using InputGradients = std::vector<std::optional<ir::Tensor>>;

/// What a backward kernel sees: the node, its input tensors, its output Y and dL/dY.
struct BackwardArgs {
  const ir::Node &node;
  const OpInputs &inputs;
  const ir::Tensor &y;
  const ir::Tensor &dy;
};

/// Throws nasc::Error "node 'name' (Op): message".
[[noreturn]] void fail(const ir::Node &node, const std::string &message);

/// The Float32 input `index` (called `role` in messages, e.g. "X"); throws nasc::Error naming
/// the node and role when it is missing or not Float32.
const ir::Tensor &floatInput(const ir::Node &node, const OpInputs &inputs, size_t index,
                             const char *role);

/// Input `index` of `node` (`role` names it in messages) as a float32 vector of `channels`
/// elements (BatchNormalization's scale, bias, mean, variance). Throws nasc::Error naming the
/// node if it is missing, not float32, or of another shape.
const ir::Tensor &channelInput(const ir::Node &node, const OpInputs &inputs, size_t index,
                               const char *role, int64_t channels);

/// The optional input `index`, or nullptr when omitted.
const ir::Tensor *optionalInput(const OpInputs &inputs, size_t index);

/// Throws nasc::Error naming the node when it declares more than `count` non-empty outputs
/// (extra outputs such as MaxPool's Indices or Dropout's mask are not supported).
void requireAtMostOutputs(const ir::Node &node, size_t count);

/// Throws nasc::Error naming the node and attribute when `attr` is set to a value other than
/// `expected` (for attributes whose other values are not supported).
void requireIntAttribute(const ir::Node &node, const std::string &attr, int64_t expected);

/// Axis `axis` in [-rank, rank + extra) normalised to [0, rank + extra); throws nasc::Error naming
/// the node and attribute 'axis' otherwise.
int64_t normalizeAxis(const ir::Node &node, int64_t axis, int64_t rank, int64_t extra = 0);

/// Clip's bounds (min, max): the optional scalar inputs 1 and 2 (Clip-11/13) when given, else the
/// attributes min and max (Clip-6), else -FLT_MAX and FLT_MAX. Throws nasc::Error naming the node
/// for a bound input that is not a float32 scalar. Shared by clip and clipBackward.
std::pair<float, float> clipBounds(const ir::Node &node, const OpInputs &inputs);

/// Float32 tensor of `shape` holding `data`.
ir::Tensor floatTensor(const ir::Shape &shape, std::vector<float> data);

} // namespace nasc::ir::reference
