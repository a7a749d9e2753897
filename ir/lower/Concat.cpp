// Concat (ONNX): one copy statement per input, writing at its offset along the axis.
#include "ir/Error.h"
#include "ir/lower/Ops.h"
#include "ir/lower/Statements.h"

namespace nasc::ir::lower {

namespace {

size_t concatAxis(const LowerContext &ctx, const Node &node, size_t rank) {
  if (!node.has("axis"))
    throw Error(ctx.where(node, "attribute 'axis' is required"));
  int64_t axis = node.getInt("axis", 0);
  int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    throw Error(ctx.where(node, "attribute 'axis': " + std::to_string(axis) +
                                    " is out of range for rank " + std::to_string(rank)));
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

/// Whether `in` equals `out` except along `axis`.
bool sameExceptAxis(const Shape &in, const Shape &out, size_t axis) {
  if (in.size() != out.size())
    return false;
  for (size_t d = 0; d < in.size(); ++d)
    if (d != axis && in[d] != out[d])
      return false;
  return true;
}

} // namespace

void lowerConcat(LowerContext &ctx, const Node &node) {
  if (node.inputs.empty() || node.outputs.empty())
    throw Error(ctx.where(node, "needs inputs and an output"));
  const Shape &out = ctx.shape(node.outputs[0]);
  size_t axis = concatAxis(ctx, node, out.size());
  KernelBuilder kb(ctx, node.name.empty() ? "concat" : node.name);
  for (const std::string &input : node.inputs)
    if (!sameExceptAxis(ctx.shape(input), out, axis))
      throw Error(ctx.where(node, "input '" + input + "' " + shapeToString(ctx.shape(input)) +
                                      " does not fit the output " + shapeToString(out)));
  std::vector<int> inputs;
  for (const std::string &input : node.inputs)
    inputs.push_back(kb.tensor(input));
  int o = kb.tensor(node.outputs[0]);
  int64_t offset = 0;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const Shape &in = ctx.shape(node.inputs[k]);
    if (in[axis] > 0 && numElements(in) > 0) {
      Statement st = makeStatement(elementIterators(in.size()), in);
      st.write = iterAccess(o, st, 0, in.size());
      st.write.index[axis] = st.write.index[axis] + offset;
      st.value = load(iterAccess(inputs[k], st, 0, in.size()));
      kb.add(std::move(st));
    }
    offset += in[axis];
  }
  if (offset != out[axis])
    throw Error(ctx.where(node, "the inputs' sizes along the axis add up to " +
                                    std::to_string(offset) + ", not the output's " +
                                    std::to_string(out[axis])));
  kb.emit({node.name});
}

} // namespace nasc::ir::lower
