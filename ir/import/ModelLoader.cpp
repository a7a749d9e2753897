#include "ir/import/ModelLoader.h"

#include "ir/Error.h"
#include "ir/import/JsonImporter.h"
#include "ir/import/OnnxImporter.h"
#include "ir/passes/Passes.h"

#include <algorithm>
#include <filesystem>

namespace nasc::ir {

namespace {

void applyOverrides(Graph &graph, const std::map<std::string, Shape> &shapeOverrides) {
  for (const auto &[name, shape] : shapeOverrides) {
    if (std::find(graph.inputs.begin(), graph.inputs.end(), name) == graph.inputs.end())
      throw Error(graph.source + ": shape override for '" + name + "': no such graph input");
    graph.values[name].shape = shape;
  }
}

} // namespace

Graph loadModelRaw(const std::string &path, const std::map<std::string, Shape> &shapeOverrides) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".onnx")
    return importOnnx(path, shapeOverrides);
  if (extension != ".json")
    throw Error(path + ": unknown model format '" + extension + "' (expected .onnx or .json)");
  Graph graph = importJson(path);
  applyOverrides(graph, shapeOverrides);
  return graph;
}

Graph loadModel(const std::string &path, const std::map<std::string, Shape> &shapeOverrides) {
  Graph graph = loadModelRaw(path, shapeOverrides);
  prepareForInference(graph);
  return graph;
}

} // namespace nasc::ir
