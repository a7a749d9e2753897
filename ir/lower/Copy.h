// Row-major copy kernels shared by the reshaping ops (ir/ops/ShapeOps.cpp) and lowerGraph.
#pragma once

#include "ir/Graph.h"
#include "ir/lower/LowerContext.h"

namespace nasc::ir::lower {

/// Copy of graph value `from` into program buffer `to` (same element count), as a kernel
/// implementing `nodes` (Copy.cpp).
void lowerCopy(LowerContext &ctx, const std::string &name, const std::string &from, int to,
               std::vector<std::string> nodes);

} // namespace nasc::ir::lower
