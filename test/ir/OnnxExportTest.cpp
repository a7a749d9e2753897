// exportOnnx on a graph with Slice (int64 initializers) and Resize (omitted roi "", float scales):
// ONNX's own checker (full_check, which also runs ONNX shape inference) must accept the model,
// and importing it back gives the same nodes and shapes.
#include "ir/export/OnnxExporter.h"
#include "ir/import/OnnxImporter.h"
#include "ir/passes/Passes.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

using nasc::ir::DType;
using nasc::ir::Graph;
using nasc::ir::Node;
using nasc::ir::Tensor;

namespace {

Tensor int64s(const std::vector<int64_t> &values) {
  return {DType::Int64, {static_cast<int64_t>(values.size())}, {}, values};
}

/// x 1x2x6x4 -> Slice rows [1, 4) -> 1x2x3x4 -> Resize nearest x2 rows -> y 1x2x6x4.
Graph sliceResizeGraph() {
  Graph g;
  g.name = "slice_resize";
  g.source = "<test>";
  g.inputs = {"x"};
  g.outputs = {"y"};
  g.values["x"] = {DType::Float32, {1, 2, 6, 4}};
  g.initializers["starts"] = int64s({1});
  g.initializers["ends"] = int64s({4});
  g.initializers["axes"] = int64s({2});
  g.initializers["scales"] = Tensor{DType::Float32, {4}, {1, 1, 2, 1}, {}};
  g.nodes = {Node{"rows", "Slice", {"x", "starts", "ends", "axes"}, {"strip"}, {}},
             Node{"up",
                  "Resize",
                  {"strip", "", "scales"},
                  {"y"},
                  {{"mode", std::string("nearest")},
                   {"coordinate_transformation_mode", std::string("asymmetric")},
                   {"nearest_mode", std::string("floor")}}}};
  nasc::ir::prepareForInference(g);
  return g;
}

} // namespace

TEST_CASE("a graph with Slice and Resize exports to a model onnx.checker accepts (full_check)") {
  const Graph g = sliceResizeGraph();
  REQUIRE(g.shapeOf("y") == nasc::ir::Shape{1, 2, 6, 4});
  const std::string path =
      (std::filesystem::temp_directory_path() / "nasc_export_slice_resize.onnx").string();
  nasc::ir::exportOnnx(g, path);
  const std::string check = "/usr/bin/python3 -c \"import onnx, sys; "
                            "onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)\" " +
                            path;
  CHECK(std::system(check.c_str()) == 0);
  Graph back = nasc::ir::importOnnx(path);
  REQUIRE(back.nodes.size() == 2);
  CHECK(back.nodes[1].inputs == std::vector<std::string>{"strip", "", "scales"});
  nasc::ir::prepareForInference(back);
  CHECK(back.shapeOf("y") == nasc::ir::Shape{1, 2, 6, 4});
  std::filesystem::remove(path);
}
