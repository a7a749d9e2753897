// A small CNN in nasc's JSON model format, written by tests that measure whole models (capacity
// gate, short training).
#pragma once

#include "test/support/FreshPath.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace nasc::test {

/// The shape of the CNN smallCnn writes.
struct SmallCnn {
  int width1 = 16, width2 = 16; ///< Output channels of the two convs.
  int channels = 1;             ///< Input channels.
  int side = 16;                ///< Input height and width.
  int classes = 10;
};

/// Writes <build dir>/test/small_cnn/<pid>/<name>.json: x (1, channels, side, side) -> Conv 3x3
/// pad 1 (width1) -> Relu -> Conv 3x3 stride 2 pad 1 (width2) -> Relu -> GlobalAveragePool ->
/// Flatten -> Gemm to `classes`, unnamed nodes (each named after its output: c1, r1, c2, ...),
/// He-normal weights (seeds 1, 2, 3) and a zero Gemm bias. Returns the path.
inline std::string writeSmallCnn(const std::string &name, const SmallCnn &cnn) {
  const std::string path = (processDir("small_cnn") / (name + ".json")).string();
  const nlohmann::json spec = {
      {"inputs", {{{"name", "x"}, {"shape", {1, cnn.channels, cnn.side, cnn.side}}}}},
      {"outputs", {"logits"}},
      {"nodes",
       {{{"op_type", "Conv"},
         {"inputs", {"x", "w1"}},
         {"outputs", {"c1"}},
         {"attributes", {{"pads", {1, 1, 1, 1}}}}},
        {{"op_type", "Relu"}, {"inputs", {"c1"}}, {"outputs", {"r1"}}},
        {{"op_type", "Conv"},
         {"inputs", {"r1", "w2"}},
         {"outputs", {"c2"}},
         {"attributes", {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}}}},
        {{"op_type", "Relu"}, {"inputs", {"c2"}}, {"outputs", {"r2"}}},
        {{"op_type", "GlobalAveragePool"}, {"inputs", {"r2"}}, {"outputs", {"g"}}},
        {{"op_type", "Flatten"}, {"inputs", {"g"}}, {"outputs", {"f"}}},
        {{"op_type", "Gemm"},
         {"inputs", {"f", "fc", "fcb"}},
         {"outputs", {"logits"}},
         {"attributes", {{"transB", 1}}}}}},
      {"initializers",
       {{{"name", "w1"},
         {"shape", {cnn.width1, cnn.channels, 3, 3}},
         {"init", "he_normal"},
         {"seed", 1}},
        {{"name", "w2"},
         {"shape", {cnn.width2, cnn.width1, 3, 3}},
         {"init", "he_normal"},
         {"seed", 2}},
        {{"name", "fc"}, {"shape", {cnn.classes, cnn.width2}}, {"init", "he_normal"}, {"seed", 3}},
        {{"name", "fcb"}, {"shape", {cnn.classes}}, {"init", "zeros"}}}}};
  std::ofstream(path) << spec.dump();
  return path;
}

} // namespace nasc::test
