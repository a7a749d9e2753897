// subsample_input: a layout transformation of a strided windowless convolution statement (a 1x1
// conv of stride 2, say). The points of its input that it reads are copied into a compact buffer
// (a packing statement at the start of the kernel) and the statement reads that buffer at unit
// stride: the copy touches 1/s² of the input once, the conv's loads then move by one element and
// every cache line they fetch is used. oneDNN's 1x1 convolutions do the same ("reduce to unit
// stride", rtus).
#pragma once

#include "compiler/transforms/TransformErrors.h"
#include "ir/Error.h"
#include "ir/Program.h"

#include <string>

namespace nasc::compiler {

/// The statement is not a strided windowless convolution: not `W += L · R` over a box, or no
/// dimension of L's index is s·o + c with s > 1 and o the only iterator of more than one
/// value in it.
class NotSubsampled : public ScheduleRefusal {
public:
  explicit NotSubsampled(const std::string &message) : ScheduleRefusal(message) {}
};

/// Whether subsampleInput applies to statement `statement` of `kernel` (no exception).
bool isStridedWindowlessConvolution(const ir::Kernel &kernel, const std::string &statement);

/// subsample_input of statement `statement` (e.g. S1: O[n,k,oh,ow] += I[n, c, 2·oh + r, 2·ow +
/// s] · W[k,c,r,s] with r, s < 1) of the kernel of program.calls[call]. A dimension d of the
/// load I[e_0, ...] is subsampled when e_d = s·o + c with s > 1, o an iterator of extent E > 1,
/// and every other iterator in e_d of extent 1 (always 0):
///  - a Temp buffer T is added to the program and the kernel, shaped like I but with extent E
///    along each subsampled dimension;
///  - a statement put first copies T[j] = I[e'(j)], over T's box, with e'_d = s·j_d + c along
///    the subsampled dimensions and j_d along the others; it is named P<k> (k the kernel's
///    statement count);
///  - the statement reads T[e''] with e''_d = o along the subsampled dimensions, e_d elsewhere.
/// The statement computes the same values (T[o] = I[s·o + c]).
/// Throws UnknownStatement (TransformErrors.h) for a missing statement and NotSubsampled.
void subsampleInput(ir::Program &program, size_t call, const std::string &statement);

} // namespace nasc::compiler
