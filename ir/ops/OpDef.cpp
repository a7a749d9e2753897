#include "ir/ops/OpDef.h"

#include "ir/Error.h"
#include "ir/ops/Families.h"

#include <algorithm>

namespace nasc::ir {

bool ShapeContext::hasInput(size_t k) const {
  return k < node.inputs.size() && !node.inputs[k].empty();
}

const ValueInfo &ShapeContext::in(size_t k) const {
  if (!hasInput(k))
    fail("input " + std::to_string(k) + " is missing");
  auto it = graph.values.find(node.inputs[k]);
  if (it == graph.values.end())
    fail("input '" + node.inputs[k] + "' has no known shape (not produced before use)");
  return it->second;
}

void ShapeContext::fail(const std::string &message) const {
  throw Error(node.describe() + ": " + message);
}

const std::vector<OpDef> &registeredOps() {
  static const std::vector<OpDef> ops = [] {
    std::vector<OpDef> all;
    for (auto family : ops::kOpFamilies)
      for (OpDef &op : family())
        all.push_back(std::move(op));
    std::sort(all.begin(), all.end(),
              [](const OpDef &a, const OpDef &b) { return a.name < b.name; });
    return all;
  }();
  return ops;
}

const OpDef *findOp(const std::string &opType) {
  const std::vector<OpDef> &ops = registeredOps();
  auto it =
      std::lower_bound(ops.begin(), ops.end(), opType,
                       [](const OpDef &op, const std::string &name) { return op.name < name; });
  return it != ops.end() && it->name == opType ? &*it : nullptr;
}

bool opHas(const std::string &opType, bool OpDef::*fact) {
  const OpDef *op = findOp(opType);
  return op && op->*fact;
}

std::optional<ValueInfo> knownType(const Graph &graph, const std::string &value) {
  if (auto init = graph.initializers.find(value); init != graph.initializers.end())
    return ValueInfo{init->second.dtype, init->second.shape};
  if (auto it = graph.values.find(value); it != graph.values.end())
    return it->second;
  return std::nullopt;
}

void requireAttribute(const Node &node, const std::string &attr, bool supported,
                      const std::string &why) {
  if (node.has(attr) && !supported)
    throw Error(node.describe() + ": attribute '" + attr + "': " + why);
}

int64_t normalizedAxis(const ShapeContext &ctx, int64_t axis, int64_t rank, int64_t upper) {
  if (axis < -rank || axis > upper)
    ctx.fail("attribute 'axis': " + std::to_string(axis) + " is out of range for rank " +
             std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

void checkAutoPad(const Graph &, const Node &node) {
  const std::string autoPad = node.getString("auto_pad", "NOTSET");
  requireAttribute(node, "auto_pad",
                   autoPad == "NOTSET" || autoPad == "VALID" || autoPad == "SAME_UPPER" ||
                       autoPad == "SAME_LOWER",
                   "value '" + autoPad + "' is not supported");
}

OutputTypes sameTypeAsInput(const ShapeContext &ctx) { return {ctx.in(0)}; }

} // namespace nasc::ir
