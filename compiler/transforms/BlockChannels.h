// block_channels: the blocked channel layouts of a convolution statement, oneDNN's nChw[x]c for
// activations and OIhw[y]i[x]o for weights. For a dense conv the statement's output channel
// loop k becomes (k0, k1) with k1 < x innermost among the output loops, its input channel loop
// c becomes (c0, c1) with c1 < y innermost among the reduction loops:
//   O'[n, k0, oh, ow, k1] += I'[n, c0, h, w, c1] · W'[k0, c0, r, s, c1, k1]
// so a vector of x output channels is one contiguous load/store of O' and of W', and an input
// element is one broadcast shared by the whole vector. A grouped conv (k = Kg·g + k',
// c = Cg·g + c') takes the same layouts, blocked inside each group; a depthwise conv (Cg = 1)
// with fewer output channels per group than x is vectorized over channels instead: lane j of
// the vector reads input channel j (repeated Kg times for a channel multiplier Kg). A max-pool
// O[n,c,oh,ow] max= I[n,c,..] takes nChw[x]c for both, c split into (c0, c1):
//   O'[n, c0, oh, ow, c1] max= I'[n, c0, .., .., c1]
// so its vector of x channels is one contiguous load of I' per window point.
#pragma once

#include "compiler/transforms/TransformErrors.h"
#include "ir/Error.h"
#include "ir/Program.h"

#include <cstdint>
#include <string>

namespace nasc::compiler {

/// The statement cannot take blocked channel layouts: it is not a convolution
/// O[n,k,h,w] += I[n,c,..] · W[k,c,..] (dense) or O[n,Kg·g+k',..] += I[n,Cg·g+c',..] ·
/// W[Kg·g+k',c',..] (grouped) over a box, nor a max-pool O[n,c,..] max= I[n,c,..]; its
/// weights are not a constant, a block does not fit its channels (per group), or another
/// statement accesses the blocked tensor in a way the split cannot follow. `what()` says
/// which.
class NotBlockable : public ScheduleRefusal {
public:
  explicit NotBlockable(const std::string &message) : ScheduleRefusal(message) {}
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
/// channel block `block` (x, dividing K) and input channel block `inputBlock` (y; 0 takes the
/// default below). Two forms, by the channels per group Kg = K/G and Cg = C/G (G = 1 dense):
///  - x divides Kg (dense and grouped convs): y must divide Cg (default defaultInputBlock(Cg,
///    x)). The conv computes O'[n, a, oh, ow, k'1] += I'[n, b, h, w, c'1] · W'[a, c'0, r, s,
///    c'1, k'1] with k' and c' split by x and y, a = (Kg/x)·g + k'0 and b = (Cg/y)·g + c'0, so
///    the blocked channel index of O' and I' is the one of a dense conv (x·a + k'1 = Kg·g + k')
///    and the activations keep nChw[x]c between grouped and dense convs;
///  - Cg = 1 and Kg divides x (depthwise, channel multiplier Kg): y must be x (or 0). g and k'
///    merge into the output channel k = Kg·g + k', split by x: O'[n, k0, oh, ow, k1] +=
///    I'[n, k0, h, w, k1] · W'[k0, 0, r, s, 0, k1]: a vector of x channels reads x contiguous
///    input channels. With Kg > 1 the input is I'' [N, K/x, H, W, x], I with each channel
///    repeated Kg times, filled by a statement put before the first statement on O.
/// For the conv's tensors:
///  - weights W [K, Cg, R, S] (a Constant): replaced at compile time by W' [K/x, Cg/y, R, S, y,
///    x], W'[k0, c0, r, s, c1, k1] = W[x·k0 + k1, y·c0 + c1, r, s] (y = 1 for the depthwise
///    form; a new buffer when another kernel or statement uses W);
///  - output O [N, K, OH, OW]: every statement of the kernel accessing it (bias, ReLU, residual
///    Add, ...) splits its channel iterator the same way and accesses O' [N, K/x, OH, OW, x]
///    instead; O' is a new Temp buffer, copied to O by a statement added last (iterators
///    (d0, d1_0, d2, d1_1, d3): by rows, so it can share the conv's (n, k0, oh) loops);
///  - input I [N, C, H, W]: the conv reads I' [N, C/y, H, W, y]. When I is the kernel's own Temp
///    (pad_input's padded buffer), I and the statements writing it take the blocked layout in
///    place; otherwise I' is a new Temp buffer filled by a statement added first.
/// A max-pool statement O[n, c, ..] max= I[n, c, ..] (MaxPool's lowering, its padding in its
/// domain's constraints): `block` x must divide C and `inputBlock` be x (or 0); O and I take
/// the layouts above with c split by x, O'[n, c0, oh, ow, c1] max= I'[n, c0, .., .., c1].
/// The result is the same up to the order of the floating-point sums over c (a max-pool's is
/// exact). Returns the input block used.
/// Throws UnknownStatement (TransformErrors.h) for a missing statement and NotBlockable.
int64_t blockChannels(ir::Program &program, size_t call, const std::string &statement,
                      int64_t block, int64_t inputBlock = 0);

} // namespace nasc::compiler
