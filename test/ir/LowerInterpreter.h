// Test helpers for the lowering: a tiny interpreter of Kernel statements on float vectors
// (domain points in lexicographic order, statements in order) and a bounds checker, both
// written independently of the code generator.
#pragma once

#include "ir/Kernel.h"
#include "ir/Program.h"

#include <functional>
#include <string>
#include <vector>

namespace nasc::lowertest {

/// Calls `visit` with every point of `st`'s domain (box and constraints), lexicographically.
void forEachPoint(const ir::Statement &st,
                  const std::function<void(const std::vector<int64_t> &)> &visit);

/// Descriptions of the accesses of `kernel` that leave their tensor (or have the wrong rank),
/// one per offending statement; empty when every access at every domain point is in bounds.
std::vector<std::string> outOfBoundsAccesses(const ir::Kernel &kernel);

/// Executes `kernel` on `tensors` (row-major data, one per kernel tensor).
/// Throws std::runtime_error on an out-of-bounds access.
void runKernel(const ir::Kernel &kernel, std::vector<std::vector<float> *> tensors);

/// Runs every call of `program` on `inputs` (in Program::inputs order; Temp and Output buffers
/// start as NaN so that a read before a write shows) and returns the
/// Output buffers' data in Program::outputs order.
std::vector<std::vector<float>> runProgram(const ir::Program &program,
                                           const std::vector<std::vector<float>> &inputs);

} // namespace nasc::lowertest
