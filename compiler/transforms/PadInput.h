// pad_input: a layout transformation of a zero-padded convolution statement. Its input is copied
// into a buffer with the padding included, whose halo is filled with zeros (packing statements at
// the start of the kernel), and the statement reads that buffer, so its iteration domain becomes a
// box: no bound of an inner loop depends on an outer one, and register tiles stay in registers
// (docs/performance.md).
#pragma once

#include "compiler/transforms/TransformErrors.h"
#include "ir/Error.h"
#include "ir/Program.h"

#include <string>

namespace nasc::compiler {

/// The statement is not a zero-padded convolution: not `W += L · R` with L a load whose
/// in-bounds constraints are the statement's only constraints, or it has no such constraint.
class NotZeroPadded : public ScheduleRefusal {
public:
  explicit NotZeroPadded(const std::string &message) : ScheduleRefusal(message) {}
};

/// Whether padInput applies to statement `statement` of `kernel` (no exception).
bool isZeroPaddedConvolution(const ir::Kernel &kernel, const std::string &statement);

/// pad_input of statement `statement` (e.g. S1: O[n,k,oh,ow] += I[n, c, oh + r − 1, ow + s − 1]
/// · W[k,c,r,s] over the points where the input index is inside I) of the kernel of
/// program.calls[call]. With I of shape (d_0, ...) and per dimension the padding before
/// (b_i, the most negative index) and after (e_i, the index past d_i − 1):
///  - a Temp buffer P of shape (d_i + b_i + e_i) is added to the program and the kernel;
///  - statements are put first that fill the halo of P with 0, one per side of each padded
///    dimension (the slab before or after I's box along dimension j, over I's box along the
///    dimensions before j and over P's along those after j: each halo element once), then one
///    that copies, P[i + b] = I[i] over I's box; they are named P<k>, P<k+1>, ... in that order
///    (k is the kernel's statement count, making fresh names). A 3x3 pad-1 conv gets 4 fills
///    (rows above and below, then columns left and right) and the copy, P<k+4>;
///  - the statement reads P[index + b] instead of I[index] and loses its constraints, so its
///    domain is the box of its extents. Zero padding adds 0 · w to the sum: same result.
/// Throws UnknownStatement (TransformErrors.h) for a missing statement and NotZeroPadded.
void padInput(ir::Program &program, size_t call, const std::string &statement);

} // namespace nasc::compiler
