// What each pass of compiler/Pipeline.h made of a model, as text, for `nasc inspect --after`.
// Each printer prints the kernels implementing `node` (every kernel when it is empty) and
// throws nasc::Error when `node` is not empty and no kernel implements it.
#pragma once

#include "compiler/Pipeline.h"

#include <iosfwd>
#include <string>

namespace nasc::compiler {

/// The graph (ir::Graph::toString), whole whatever `node` is.
void printGraph(std::ostream &out, const PolyhedralModel &model, const std::string &node);
/// Each Kernel (ir::Kernel::toString).
void printKernels(std::ostream &out, const PolyhedralModel &model, const std::string &node);
/// Each Kernel, then its trace so far, one step per line.
void printKernelsAndTraces(std::ostream &out, const PolyhedralModel &model,
                           const std::string &node);
/// Each Scop in isl notation: iteration domain, write and read access relations, schedule tree.
void printScops(std::ostream &out, const PolyhedralModel &model, const std::string &node);
/// Each kernel's dependences in isl notation: flow, anti, output, reductions.
void printDependences(std::ostream &out, const PolyhedralModel &model, const std::string &node);
/// Each kernel's trace, one step per line, then its schedule tree.
void printSchedules(std::ostream &out, const PolyhedralModel &model, const std::string &node);
/// Each kernel's isl AST as C-like text (poly::astToString).
void printAsts(std::ostream &out, const PolyhedralModel &model, const std::string &node);

} // namespace nasc::compiler
