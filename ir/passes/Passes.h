// The graph pipeline that makes an imported graph ready for inference lowering.
#pragma once

#include "ir/Graph.h"
#include "ir/passes/ConstantFolding.h"
#include "ir/passes/FoldBatchNorm.h"
#include "ir/passes/RemoveNoOps.h"
#include "ir/passes/ShapeInference.h"
#include "ir/passes/SupportedOps.h"

namespace nasc::ir {

/// Runs, in order: checkSupported, foldConstants, removeNoOps, inferShapes: the graph computes
/// what it did as imported (BatchNormalization kept, for training-mode execution such as the
/// Fisher Potential) and every value has a static shape. Throws nasc::Error from the first pass
/// that rejects the graph.
inline void prepareForTraining(Graph &graph) {
  checkSupported(graph);
  foldConstants(graph);
  removeNoOps(graph);
  inferShapes(graph);
}

/// prepareForTraining, then foldBatchNorm.
/// Afterwards every value has a static shape, no Constant / Dropout nodes remain (Identity only
/// as a copy of an input or initializer to a graph output) and BNs after single-use Convs are
/// folded. Throws nasc::Error from the first pass that rejects the graph.
inline void prepareForInference(Graph &graph) {
  prepareForTraining(graph);
  foldBatchNorm(graph);
}

} // namespace nasc::ir
