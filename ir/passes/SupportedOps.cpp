#include "ir/passes/SupportedOps.h"

#include "ir/Error.h"

#include <set>

namespace nasc::ir {

namespace {

/// An op nasc supports: its ONNX attributes, how many outputs it may have, and whether its
/// inputs must be float32 (compute ops) or may be int64 too (shape-like ops).
struct OpSupport {
  std::set<std::string> attributes;
  size_t maxOutputs = 1;
  bool floatOnly = true;
};

const std::map<std::string, OpSupport> &supportedOps() {
  static const std::map<std::string, OpSupport> table = {
      {"Conv", {{"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}}},
      {"BatchNormalization", {{"epsilon", "momentum", "training_mode", "spatial", "is_test"}}},
      {"Relu", {{}}},
      {"MaxPool",
       {{"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order",
         "strides"}}},
      {"AveragePool",
       {{"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"}}},
      {"GlobalAveragePool", {{}}},
      {"Add", {{}, 1, false}},
      {"Flatten", {{"axis"}, 1, false}},
      {"Gemm", {{"alpha", "beta", "transA", "transB", "broadcast"}}},
      {"Concat", {{"axis"}, 1, false}},
      {"Identity", {{}, 1, false}},
      {"Dropout", {{"ratio", "seed", "is_test"}, 2}},
      {"Constant", {{"value", "value_float", "value_floats", "value_int", "value_ints"}, 1, false}},
      {"Reshape", {{"allowzero"}, 1, false}},
      {"Slice", {{}, 1, false}},
      {"Resize",
       {{"coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside",
         "extrapolation_value", "mode", "nearest_mode"},
        1,
        false}},
  };
  return table;
}

[[noreturn]] void reject(const Graph &graph, const Node &node, const std::string &message) {
  throw Error(graph.source + ": " + node.describe() + ": " + message);
}

/// `error` with the graph's file in front, unless it names it already.
Error withSource(const Graph &graph, const Error &error) {
  const std::string message = error.what();
  return message.starts_with(graph.source + ": ") ? error : Error(graph.source + ": " + message);
}

void checkAttributeValue(const Graph &graph, const Node &node, const std::string &attr,
                         bool supported, const std::string &why) {
  if (node.has(attr) && !supported)
    reject(graph, node, "attribute '" + attr + "': " + why);
}

/// Resize: mode 'nearest' only; coordinate_transformation_mode and nearest_mode one of ONNX's.
void checkResizeAttributes(const Graph &graph, const Node &node) {
  const std::string mode = node.getString("mode", "nearest");
  checkAttributeValue(graph, node, "mode", mode == "nearest",
                      "value '" + mode + "' is not supported (only 'nearest')");
  static const std::set<std::string> transforms = {"half_pixel",           "pytorch_half_pixel",
                                                   "align_corners",        "asymmetric",
                                                   "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  const std::string transform = node.getString("coordinate_transformation_mode", "half_pixel");
  checkAttributeValue(graph, node, "coordinate_transformation_mode", transforms.count(transform),
                      "value '" + transform + "' is not supported");
  static const std::set<std::string> roundings = {"round_prefer_floor", "round_prefer_ceil",
                                                  "floor", "ceil"};
  const std::string rounding = node.getString("nearest_mode", "round_prefer_floor");
  checkAttributeValue(graph, node, "nearest_mode", roundings.count(rounding),
                      "value '" + rounding + "' is not supported");
}

void checkAttributeValues(const Graph &graph, const Node &node) {
  const std::string &op = node.op_type;
  const std::string autoPad = node.getString("auto_pad", "NOTSET");
  checkAttributeValue(graph, node, "auto_pad",
                      autoPad == "NOTSET" || autoPad == "VALID" || autoPad == "SAME_UPPER" ||
                          autoPad == "SAME_LOWER",
                      "value '" + autoPad + "' is not supported");
  if (op == "MaxPool")
    checkAttributeValue(graph, node, "storage_order", node.getInt("storage_order", 0) == 0,
                        "value 1 (column-major indices) is not supported");
  if (op == "BatchNormalization") {
    checkAttributeValue(graph, node, "training_mode", node.getInt("training_mode", 0) == 0,
                        "value 1 is not supported (inference only)");
    checkAttributeValue(graph, node, "spatial", node.getInt("spatial", 1) == 1,
                        "value 0 (per-activation statistics) is not supported");
  }
  if (op == "Gemm")
    for (const char *flag : {"transA", "transB"})
      checkAttributeValue(graph, node, flag, node.getInt(flag, 0) == 0 || node.getInt(flag, 0) == 1,
                          "must be 0 or 1");
  if (op == "Concat" && !node.has("axis"))
    reject(graph, node, "attribute 'axis': missing");
  if (op == "Resize")
    checkResizeAttributes(graph, node);
  if ((op == "MaxPool" || op == "AveragePool") && !node.has("kernel_shape"))
    reject(graph, node, "attribute 'kernel_shape': missing");
}

/// Type of an initializer or of a value with a recorded shape; nullopt if not known yet.
std::optional<ValueInfo> knownType(const Graph &graph, const std::string &value) {
  if (auto init = graph.initializers.find(value); init != graph.initializers.end())
    return ValueInfo{init->second.dtype, init->second.shape};
  if (auto it = graph.values.find(value); it != graph.values.end())
    return it->second;
  return std::nullopt;
}

void checkInputs(const Graph &graph, const Node &node, const OpSupport &support) {
  if (node.op_type == "Dropout" && node.inputs.size() > 2 && !node.inputs[2].empty())
    reject(graph, node, "input 'training_mode': training-mode Dropout is not supported");
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const std::string &input = node.inputs[k];
    std::optional<ValueInfo> type = knownType(graph, input);
    if (!type)
      continue;
    if (support.floatOnly && type->dtype != DType::Float32)
      reject(graph, node, "input '" + input + "': only float32 is supported");
    if (node.op_type == "Gemm" && type->shape.size() != 2 && k < 2)
      reject(graph, node,
             "input '" + input + "': Gemm inputs A and B must be 2-D, got " +
                 shapeToString(type->shape));
  }
}

void checkOutputs(const Graph &graph, const Node &node, const OpSupport &support) {
  for (size_t k = support.maxOutputs; k < node.outputs.size(); ++k)
    if (!node.outputs[k].empty())
      reject(graph, node,
             "output " + std::to_string(k) + " ('" + node.outputs[k] + "') is not supported" +
                 (node.op_type == "BatchNormalization" ? " (training outputs)" : ""));
}

} // namespace

void checkSupported(const Graph &graph) {
  for (const Node &node : graph.nodes) {
    auto it = supportedOps().find(node.op_type);
    if (it == supportedOps().end())
      reject(graph, node, "op '" + node.op_type + "' is not supported");
    for (const auto &[attr, value] : node.attributes)
      if (!it->second.attributes.count(attr))
        reject(graph, node, "attribute '" + attr + "' is not supported");
    try {
      checkAttributeValues(graph, node);
    } catch (const Error &e) {
      throw withSource(graph, e);
    }
    checkInputs(graph, node, it->second);
    checkOutputs(graph, node, it->second);
  }
}

} // namespace nasc::ir
