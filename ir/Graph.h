// The graph IR: ONNX-shaped nodes on named values, with initializers as weights.
#pragma once

#include "ir/Tensor.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace nasc::ir {

/// An ONNX attribute value: INT, FLOAT, STRING, INTS, FLOATS or TENSOR (ONNX IR spec,
/// AttributeProto). Other ONNX attribute kinds are rejected by the importers.
using Attribute =
    std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>, Tensor>;

/// One operation, as in ONNX's NodeProto: `op_type` is the ONNX op name ("Conv", "Relu", ...),
/// inputs/outputs are value names ("" for an omitted optional input).
struct Node {
  std::string name;
  std::string op_type;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::map<std::string, Attribute> attributes;

  bool has(const std::string &attr) const { return attributes.count(attr) != 0; }
  /// Attribute accessors with a default; a present attribute of the wrong kind throws
  /// nasc::Error naming the node and attribute.
  int64_t getInt(const std::string &attr, int64_t fallback) const;
  float getFloat(const std::string &attr, float fallback) const;
  std::string getString(const std::string &attr, const std::string &fallback) const;
  std::vector<int64_t> getInts(const std::string &attr, const std::vector<int64_t> &fallback) const;
  /// "node 'conv1' (Conv)": the prefix of every error about this node.
  std::string describe() const;
};

/// Type of a value: dtype and shape. After shape inference every value has a known shape.
struct ValueInfo {
  DType dtype = DType::Float32;
  Shape shape;
};

/// A model: nodes in topological order, named graph inputs/outputs, weights as initializers.
struct Graph {
  std::string name;
  std::string source; ///< File the graph was read from (for error messages), or "<builtin>".
  std::vector<Node> nodes;
  std::vector<std::string> inputs;  ///< Graph inputs in order (initializers excluded).
  std::vector<std::string> outputs; ///< Graph outputs in order.
  std::map<std::string, ValueInfo> values;
  std::map<std::string, Tensor> initializers;

  bool isInitializer(const std::string &value) const { return initializers.count(value) != 0; }
  /// Shape of a value; throws nasc::Error if the value is unknown.
  const Shape &shapeOf(const std::string &value) const;
  /// Index of the node producing `value`, or nullopt for graph inputs and initializers.
  std::optional<size_t> producerOf(const std::string &value) const;
  /// Indices of the nodes that read `value`.
  std::vector<size_t> consumersOf(const std::string &value) const;
  /// Listing of inputs, nodes (with attributes and output shapes) and outputs, for
  /// `nasc inspect --stage graph`.
  std::string toString() const;
};

} // namespace nasc::ir
