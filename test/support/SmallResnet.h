// A small residual network in nasc's JSON model format, prepared for training: the search's
// tests transform and judge it in milliseconds.
#pragma once

#include "compiler/nas/FisherMeasurement.h"
#include "ir/Graph.h"
#include "test/support/FreshPath.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace nasc::test {

/// Writes <name>.json in this test process's own directory (ctest runs a file's cases side by
/// side) and loads it for training: x (1, 4, 16, 16) -> stem 3x3
/// (16) -> two residual blocks of two 3x3 convs at 16 channels -> a stride-2 block at 32 (3x3
/// convs c1, c2 and a 1x1 downsample cd) -> a block at 32 -> GlobalAveragePool -> Gemm (10);
/// Relu after each conv and Add; 10 Convs, small enough that steps apply in a millisecond.
inline ir::Graph smallResnet(const std::string &name) {
  using nlohmann::json;
  json nodes = json::array(), initializers = json::array();
  int seed = 0;
  auto conv = [&](const std::string &name, const std::string &input, int in, int out, int kernel,
                  int stride) {
    nodes.push_back({{"name", name},
                     {"op_type", "Conv"},
                     {"inputs", {input, name + ".w"}},
                     {"outputs", {name}},
                     {"attributes",
                      {{"pads", std::vector<int>(4, kernel / 2)}, {"strides", {stride, stride}}}}});
    initializers.push_back({{"name", name + ".w"},
                            {"shape", {out, in, kernel, kernel}},
                            {"init", "he_normal"},
                            {"seed", ++seed}});
  };
  auto op = [&](const std::string &type, const std::vector<std::string> &inputs,
                const std::string &output) {
    nodes.push_back(
        {{"name", output}, {"op_type", type}, {"inputs", inputs}, {"outputs", {output}}});
  };
  auto block = [&](const std::string &name, const std::string &input, int width) {
    conv(name + "1", input, width, width, 3, 1);
    op("Relu", {name + "1"}, name + "1r");
    conv(name + "2", name + "1r", width, width, 3, 1);
    op("Add", {name + "2", input}, name + "+");
    op("Relu", {name + "+"}, name + "r");
  };
  conv("stem", "x", 4, 16, 3, 1);
  op("Relu", {"stem"}, "stemr");
  block("a", "stemr", 16);
  block("b", "ar", 16);
  conv("c1", "br", 16, 32, 3, 2);
  op("Relu", {"c1"}, "c1r");
  conv("c2", "c1r", 32, 32, 3, 1);
  conv("cd", "br", 16, 32, 1, 2);
  op("Add", {"c2", "cd"}, "c+");
  op("Relu", {"c+"}, "cr");
  block("d", "cr", 32);
  op("GlobalAveragePool", {"dr"}, "g");
  op("Flatten", {"g"}, "f");
  nodes.push_back({{"name", "fc"},
                   {"op_type", "Gemm"},
                   {"inputs", {"f", "fc.w", "fc.b"}},
                   {"outputs", {"logits"}},
                   {"attributes", {{"transB", 1}}}});
  initializers.push_back(
      {{"name", "fc.w"}, {"shape", {10, 32}}, {"init", "he_normal"}, {"seed", ++seed}});
  initializers.push_back({{"name", "fc.b"}, {"shape", {10}}, {"init", "zeros"}});
  const std::string path = (processDir("search") / (name + ".json")).string();
  const json spec{{"inputs", {{{"name", "x"}, {"shape", {1, 4, 16, 16}}}}},
                  {"outputs", {"logits"}},
                  {"nodes", nodes},
                  {"initializers", initializers}};
  std::ofstream(path) << spec.dump();
  return nas::loadForTraining(path);
}

} // namespace nasc::test
