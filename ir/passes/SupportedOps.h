// The ops and attribute values nasc compiles; everything else is rejected up front.
#pragma once

#include "ir/Graph.h"

namespace nasc::ir {

/// Checks every node against its op's registry entry (ir/ops/OpDef.h): the op is registered,
/// its attributes are among OpDef::attributes, OpDef::check accepts their values, inputs of known
/// type are float32 where OpDef::floatInputs says so, and it has at most OpDef::maxOutputs
/// outputs. Throws nasc::Error naming the file, node, op and attribute (or input / output).
void checkSupported(const Graph &graph);

} // namespace nasc::ir
