#include "ir/import/JsonImporter.h"

#include "ir/Error.h"
#include "ir/import/JsonFields.h"
#include "ir/import/JsonWeights.h"
#include "ir/ops/OpDef.h"

#include <fstream>
#include <set>

namespace nasc::ir {

using namespace json_fields;

namespace {

constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 17;

Json parseFile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw Error(path + ": cannot open file");
  try {
    return Json::parse(in);
  } catch (const Json::exception &e) {
    throw Error(path + ": not valid JSON: " + e.what());
  }
}

/// Whether attribute `name` of op `opType` is of ONNX type FLOAT(S) (ir::OpDef::floatAttributes):
/// a JSON integer given for it becomes a float.
bool isFloatAttribute(const std::string &opType, const std::string &name) {
  const OpDef *op = findOp(opType);
  return op && op->floatAttributes.count(name);
}

Attribute arrayAttribute(const Json &value, const std::string &where, const std::string &name,
                         bool isFloat) {
  bool allIntegers = true;
  for (const Json &v : value) {
    if (!v.is_number())
      fail(where, "attributes." + name, "arrays must hold numbers only");
    allIntegers = allIntegers && v.is_number_integer();
  }
  if (allIntegers && !isFloat)
    return value.get<std::vector<int64_t>>();
  return value.get<std::vector<float>>();
}

Attribute attributeFromJson(const Json &value, const std::string &where, const std::string &name,
                            bool isFloat) {
  if (value.is_number_integer() && !isFloat)
    return value.get<int64_t>();
  if (value.is_number())
    return value.get<float>();
  if (value.is_string())
    return value.get<std::string>();
  if (value.is_array())
    return arrayAttribute(value, where, name, isFloat);
  if (value.is_object())
    return json_weights::inlineTensor(value, where + ": attribute '" + name + "'");
  fail(where, "attributes." + name, "must be a number, string, array of numbers or tensor object");
}

Node nodeFromJson(const Json &entry, size_t index, const std::string &path) {
  const std::string anonymous = path + ": node #" + std::to_string(index);
  checkObject(entry, {"name", "op_type", "inputs", "outputs", "attributes"}, anonymous);
  Node node;
  node.name = entry.contains("name") ? stringField(entry, "name", anonymous) : "";
  node.op_type = stringField(entry, "op_type", anonymous);
  node.outputs = namesField(entry, "outputs", anonymous);
  if (node.name.empty())
    node.name = node.outputs.empty() ? node.op_type + "_" + std::to_string(index) : node.outputs[0];
  const std::string where = path + ": " + node.describe();
  node.inputs = namesField(entry, "inputs", where);
  if (node.outputs.empty())
    fail(where, "outputs", "must name at least one value");
  if (!entry.contains("attributes"))
    return node;
  const Json &attributes = entry["attributes"];
  if (!attributes.is_object())
    fail(where, "attributes", "must be an object");
  for (const auto &item : attributes.items())
    node.attributes[item.key()] = attributeFromJson(item.value(), where, item.key(),
                                                    isFloatAttribute(node.op_type, item.key()));
  return node;
}

void addInput(Graph &graph, const Json &entry, size_t index) {
  const std::string anonymous = graph.source + ": input #" + std::to_string(index);
  checkObject(entry, {"name", "shape", "dtype"}, anonymous);
  std::string name = stringField(entry, "name", anonymous);
  const std::string where = graph.source + ": input '" + name + "'";
  Shape shape = shapeField(entry, "shape", where);
  if (entry.contains("dtype") && stringField(entry, "dtype", where) != "float32")
    fail(where, "dtype", "graph inputs must be \"float32\"");
  graph.inputs.push_back(name);
  graph.values[name] = ValueInfo{DType::Float32, shape};
}

void addInitializer(Graph &graph, const Json &entry, size_t index) {
  const std::string anonymous = graph.source + ": initializer #" + std::to_string(index);
  if (!entry.is_object())
    throw Error(anonymous + ": must be a JSON object");
  std::string name = stringField(entry, "name", anonymous);
  const std::string where = graph.source + ": initializer '" + name + "'";
  if (graph.isInitializer(name))
    fail(where, "name", "defined twice");
  Tensor tensor = json_weights::initializerTensor(entry, graph.source, where);
  graph.values[name] = ValueInfo{tensor.dtype, tensor.shape};
  graph.initializers[name] = std::move(tensor);
}

const Json &arrayField(const Json &spec, const std::string &field, const std::string &path) {
  const Json &value = require(spec, field, path);
  if (!value.is_array())
    fail(path, field, "must be an array");
  return value;
}

void checkOpset(const Json &spec, const std::string &path) {
  if (!spec.contains("opset"))
    return;
  int64_t opset = intField(spec, "opset", path);
  if (opset < kMinOpset || opset > kMaxOpset)
    fail(path, "opset",
         std::to_string(opset) + " is not supported (nasc reads opsets " +
             std::to_string(kMinOpset) + "-" + std::to_string(kMaxOpset) + ")");
}

void checkSingleDefinitions(const Graph &graph) {
  std::set<std::string> defined(graph.inputs.begin(), graph.inputs.end());
  for (const auto &[name, tensor] : graph.initializers)
    if (!defined.insert(name).second)
      throw Error(graph.source + ": value '" + name + "' is both an input and an initializer");
  for (const Node &node : graph.nodes)
    for (const std::string &out : node.outputs)
      if (!out.empty() && !defined.insert(out).second)
        throw Error(graph.source + ": " + node.describe() + ": output '" + out +
                    "' is already defined");
}

} // namespace

Graph importJson(const std::string &path) {
  Json spec = parseFile(path);
  checkObject(spec, {"name", "opset", "doc_string", "inputs", "outputs", "nodes", "initializers"},
              path);
  checkOpset(spec, path);
  Graph graph;
  graph.source = path;
  graph.name = spec.contains("name") ? stringField(spec, "name", path) : "";
  const Json &inputs = arrayField(spec, "inputs", path);
  for (size_t k = 0; k < inputs.size(); ++k)
    addInput(graph, inputs[k], k);
  graph.outputs = namesField(spec, "outputs", path);
  if (spec.contains("initializers")) {
    const Json &initializers = arrayField(spec, "initializers", path);
    for (size_t k = 0; k < initializers.size(); ++k)
      addInitializer(graph, initializers[k], k);
  }
  const Json &nodes = arrayField(spec, "nodes", path);
  for (size_t k = 0; k < nodes.size(); ++k)
    graph.nodes.push_back(nodeFromJson(nodes[k], k, path));
  checkSingleDefinitions(graph);
  return graph;
}

} // namespace nasc::ir
