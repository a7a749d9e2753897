// The convolution statements the layout steps and the neural steps' isl forms recognise: dense
// O[n, k, ..] += I[n, c, ..] · W[k, c, ..] and grouped O[n, Kg·g + k', ..] += I[n, Cg·g + c', ..]
// · W[Kg·g + k', c', ..] (ir/ops/ConvOps.cpp; depthwise is grouped with Cg = 1).
#pragma once

#include "ir/Kernel.h"

#include <cstdint>
#include <optional>
#include <string>

namespace nasc::compiler {

/// A matched convolution statement: its kernel tensors and channel iterators.
struct ConvStatement {
  int out = -1, in = -1, weights = -1;     ///< Kernel tensors O, I, W.
  std::optional<size_t> group;             ///< g of a grouped convolution.
  size_t k = 0;                            ///< The output channel iterator (k, or k' of a group).
  size_t c = 0;                            ///< The input channel (reduction) iterator (c or c').
  int64_t groups = 1;                      ///< G: the extent of g, 1 for a dense convolution.
  int64_t outPerGroup = 0, inPerGroup = 0; ///< Kg and Cg: the extents of k and c.
};

/// Matches `st` as a convolution of any spatial rank, padded or not: O += I · W with O and I
/// N x C x spatial..., W K x C/G x kernel..., whose channel iterators appear in their channel
/// indices only, the input channel one a reduction iterator (ir::Statement::reduction) and the
/// output channel one not. Returns why it is not one, or "" and sets `conv`.
std::string matchConvolution(const ir::Statement &st, ConvStatement &conv);

/// matchConvolution of a statement over a box (no constraints: padded by pad_input) with 4-d
/// output, input and weights (O NCHW, I NCHW, W OIHW), the convolutions the layout steps
/// rewrite. Returns why it is not one (e.g. "its domain is not a box (apply pad_input first)"),
/// or "" and sets `conv`.
std::string matchConvStatement(const ir::Statement &st, ConvStatement &conv);

} // namespace nasc::compiler
