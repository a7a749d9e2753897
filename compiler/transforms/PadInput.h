// pad_input: a layout transformation of a zero-padded convolution statement. Its input is copied
// into a zero-filled buffer with the padding included (two packing statements at the start of the
// kernel), and the statement reads that buffer, so its iteration domain becomes a box: no bound
// of an inner loop depends on an outer one, and register tiles stay in registers
// (docs/performance.md).
#pragma once

#include "ir/Error.h"
#include "ir/Program.h"

#include <string>

namespace nasc::compiler {

/// The statement is not a zero-padded convolution: not `W += L · R` with L a load whose
/// in-bounds constraints are the statement's only constraints, or it has no such constraint.
class NotZeroPadded : public Error {
public:
  explicit NotZeroPadded(const std::string &message) : Error(message) {}
};

/// Whether padInput applies to statement `statement` of `kernel` (no exception).
bool isZeroPaddedConvolution(const ir::Kernel &kernel, const std::string &statement);

/// pad_input of statement `statement` (e.g. S1: O[n,k,oh,ow] += I[n, c, oh + r − 1, ow + s − 1]
/// · W[k,c,r,s] over the points where the input index is inside I) of the kernel of
/// program.calls[call]. With I of shape (d_0, ...) and per dimension the padding before
/// (b_i, the most negative index) and after (e_i, the index past d_i − 1):
///  - a Temp buffer P of shape (d_i + b_i + e_i) is added to the program and the kernel;
///  - two statements are put first: P<k>: P[p] = 0 over P's box, then P<k+1>: P[i + b] = I[i]
///    over I's box (k is the kernel's statement count, making fresh names);
///  - the statement reads P[index + b] instead of I[index] and loses its constraints, so its
///    domain is the box of its extents. Zero padding adds 0 · w to the sum: same result.
/// Throws UnknownStatement (TransformErrors.h) for a missing statement and NotZeroPadded.
void padInput(ir::Program &program, size_t call, const std::string &statement);

} // namespace nasc::compiler
