// block_channels: the blocked channel layouts of a convolution statement, oneDNN's nChw[x]c for
// activations and OIhw[y]i[x]o for weights. The statement's output channel loop k becomes
// (k0, k1) with k1 < x innermost among the output loops, its input channel loop c becomes
// (c0, c1) with c1 < y innermost among the reduction loops:
//   O'[n, k0, oh, ow, k1] += I'[n, c0, h, w, c1] · W'[k0, c0, r, s, c1, k1]
// so a vector of x output channels is one contiguous load/store of O' and of W', and an input
// element is one broadcast shared by the whole vector.
#pragma once

#include "ir/Error.h"
#include "ir/Program.h"

#include <cstdint>
#include <string>

namespace nasc::compiler {

/// The statement cannot take blocked channel layouts: it is not a dense convolution
/// O[n,k,h,w] += I[n,c,..] · W[k,c,..] over a box, its weights are not a constant, a block does
/// not divide its channel count, or another statement accesses the blocked tensor in a way the
/// split cannot follow. `what()` says which.
class NotBlockable : public Error {
public:
  explicit NotBlockable(const std::string &message) : Error(message) {}
};

/// The input channel block used when none is given: the largest divisor of `channels` that is
/// at most `block` (16 for C = 64 and block 16; 3 for the C = 3 of an RGB stem).
int64_t defaultInputBlock(int64_t channels, int64_t block);

/// Why blockChannels(program, call, statement, block, inputBlock) would refuse, or "" when it
/// applies (for the default trace, which only asks for blocks that apply).
std::string blockChannelsRefusal(const ir::Program &program, size_t call,
                                 const std::string &statement, int64_t block,
                                 int64_t inputBlock = 0);

/// block_channels of statement `statement` of the kernel of program.calls[call], with output
/// channel block `block` (x, a multiple of nothing but dividing K) and input channel block
/// `inputBlock` (y dividing C; 0 takes defaultInputBlock(C, x)). For the conv's tensors:
///  - weights W [K, C, R, S] (a Constant): replaced at compile time by W' [K/x, C/y, R, S, y, x],
///    W'[k0, c0, r, s, c1, k1] = W[x·k0 + k1, y·c0 + c1, r, s] (a new buffer when another kernel
///    or statement uses W);
///  - output O [N, K, OH, OW]: every statement of the kernel accessing it (bias, ReLU, residual
///    Add, ...) splits its channel iterator the same way and accesses O' [N, K/x, OH, OW, x]
///    instead; O' is a new Temp buffer, copied to O by a statement added last (iterators
///    (d0, d1_0, d2, d1_1, d3): by rows, so it can share the conv's (n, k0, oh) loops);
///  - input I [N, C, H, W]: the conv reads I' [N, C/y, H, W, y]. When I is the kernel's own Temp
///    (pad_input's padded buffer), I and the statements writing it take the blocked layout in
///    place; otherwise I' is a new Temp buffer filled by a statement added first.
/// The result is the same up to the order of the floating-point sums over c. Returns the input
/// block used.
/// Throws UnknownStatement (TransformErrors.h) for a missing statement and NotBlockable.
int64_t blockChannels(ir::Program &program, size_t call, const std::string &statement,
                      int64_t block, int64_t inputBlock = 0);

} // namespace nasc::compiler
