// Internal to ir/lower: which Conv nodes absorb a following residual Add and/or Relu.
#pragma once

#include "ir/Graph.h"

#include <optional>
#include <string>
#include <vector>

namespace nasc::ir::lower {

/// A Conv and the nodes fused into its kernel: Conv → [Add(conv, residual)] → [Relu].
struct ConvFusion {
  size_t conv = 0;
  std::optional<size_t> add;
  std::string residual; ///< The Add's other operand (same shape as the conv output).
  std::optional<size_t> relu;

  /// Index of the last fused node: the kernel runs at its place in the node order, where
  /// every input (including the residual) has been computed.
  size_t last() const { return relu ? *relu : add ? *add : conv; }
};

/// The fusion of every Conv node of `graph`, in node order. An Add or Relu is fused when the
/// value it consumes is produced by the previous node of the chain, has exactly one consumer and
/// is not a graph output; the Add's other operand must have the conv output's shape. When two
/// Convs feed one Add, the first in node order fuses it and the other is its residual.
std::vector<ConvFusion> planConvFusion(const Graph &graph);

} // namespace nasc::ir::lower
