// lowerGraph: each node (or fused Conv chain) lowered by its op's registry entry (ir/ops).
#include "ir/lower/Lower.h"

#include "ir/Error.h"
#include "ir/lower/Copy.h"
#include "ir/lower/LowerContext.h"
#include "ir/ops/OpDef.h"

namespace nasc::ir {

namespace {

using lower::LowerContext;

/// Copies into the Output buffers of graph outputs that no node produces (graph inputs and
/// initializers).
void copyUnproducedOutputs(LowerContext &ctx) {
  const Graph &g = ctx.graph();
  for (size_t k = 0; k < g.outputs.size(); ++k)
    if (!g.producerOf(g.outputs[k]))
      lower::lowerCopy(ctx, "copy_" + g.outputs[k], g.outputs[k], ctx.program().outputs[k], {});
}

void lowerNode(LowerContext &ctx, const Node &node) {
  const OpDef *op = findOp(node.op_type);
  if (!op)
    throw Error(ctx.where(node, "op type '" + node.op_type + "' is not supported"));
  if (!op->lower)
    throw Error(ctx.where(node, "is removed by " + op->removedBy + " before lowering"));
  op->lower(ctx, node);
}

} // namespace

Program lowerGraph(const Graph &graph) {
  LowerContext ctx(graph);
  for (size_t k = 0; k < graph.nodes.size(); ++k)
    if (const Node *node = ctx.kernelNodeAt(k))
      lowerNode(ctx, *node);
  copyUnproducedOutputs(ctx);
  return ctx.take();
}

} // namespace nasc::ir
