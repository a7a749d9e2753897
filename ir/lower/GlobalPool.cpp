// GlobalAveragePool and GlobalMaxPool (ONNX): reduce all spatial axes of an N×C×D1×...×Dk tensor
// to N×C×1×...×1.
#include "ir/Error.h"
#include "ir/lower/Ops.h"
#include "ir/lower/Statements.h"

#include <limits>

namespace nasc::ir::lower {

namespace {

/// O[n, c, 0, ..., 0] over the statement's first two iterators.
Access pooledAccess(int out, const Statement &st, size_t spatial) {
  Access a = iterAccess(out, st, 0, 2);
  for (size_t d = 0; d < spatial; ++d)
    a.index.push_back(constant(st, 0));
  return a;
}

/// N×C×1×...×1 for an input `x` of rank >= 2.
Shape pooledShape(const Shape &x) {
  Shape y(x.size(), 1);
  y[0] = x[0];
  y[1] = x[1];
  return y;
}

/// The statement O[n,c,0..0] = value over (n, c).
Statement channelStatement(const Shape &x, int out) {
  Statement st = makeStatement({"n", "c"}, {x[0], x[1]});
  st.write = pooledAccess(out, st, x.size() - 2);
  return st;
}

void lowerGlobalPool(LowerContext &ctx, const Node &node, bool average) {
  if (node.inputs.empty() || node.outputs.empty())
    throw Error(ctx.where(node, "needs an input and an output"));
  const Shape &x = ctx.shape(node.inputs[0]);
  if (x.size() < 3 || ctx.shape(node.outputs[0]) != pooledShape(x))
    throw Error(ctx.where(node, "input " + shapeToString(x) +
                                    " must be NxCxD1x... and the output NxCx1x..."));
  KernelBuilder kb(ctx, node.name.empty() ? "globalpool" : node.name);
  int in = kb.tensor(node.inputs[0]);
  int out = kb.tensor(node.outputs[0]);
  size_t spatial = x.size() - 2;
  Statement init = channelStatement(x, out);
  init.value = Expr::constant(average ? 0.0f : -std::numeric_limits<float>::infinity());
  kb.add(std::move(init));
  std::vector<std::string> iterators{"n", "c"};
  for (const auto &name :
       x.size() == 4 ? std::vector<std::string>{"h", "w"} : elementIterators(spatial, "x"))
    iterators.push_back(name);
  Statement reduce = makeStatement(iterators, x);
  for (size_t d = 2; d < x.size(); ++d)
    reduce.reduction[d] = true;
  reduce.write = pooledAccess(out, reduce, spatial);
  reduce.update = average ? Update::Add : Update::Max;
  reduce.value = load(iterAccess(in, reduce, 0, x.size()));
  kb.add(std::move(reduce));
  if (average) {
    Statement scale = channelStatement(x, out);
    float rcp = 1.0f / static_cast<float>(numElements(Shape(x.begin() + 2, x.end())));
    scale.value = binary(Expr::Op::Mul, load(scale.write), Expr::constant(rcp));
    kb.add(std::move(scale));
  }
  kb.emit({node.name});
}

} // namespace

void lowerGlobalAveragePool(LowerContext &ctx, const Node &node) {
  lowerGlobalPool(ctx, node, true);
}

void lowerGlobalMaxPool(LowerContext &ctx, const Node &node) { lowerGlobalPool(ctx, node, false); }

} // namespace nasc::ir::lower
