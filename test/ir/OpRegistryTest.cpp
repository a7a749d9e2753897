// The op registry (ir/ops): every op has the parts it claims, lookups round-trip, and the
// dispatchers reject what the registry does not define. Expected shapes are worked out by hand
// from the ONNX operator spec.
#include "ir/Error.h"
#include "ir/lower/Lower.h"
#include "ir/ops/OpDef.h"
#include "ir/passes/Passes.h"
#include "ir/passes/ShapeInference.h"
#include "ir/passes/SupportedOps.h"

#include <catch2/catch.hpp>

using nasc::ir::DType;
using nasc::ir::Graph;
using nasc::ir::Node;
using nasc::ir::OpDef;
using nasc::ir::Shape;

namespace {

Graph graphOf(Shape x, Node node) {
  Graph g;
  g.source = "model.json";
  g.inputs = {"x"};
  g.values["x"] = {DType::Float32, std::move(x)};
  g.outputs = {node.outputs.at(0)};
  g.nodes = {std::move(node)};
  return g;
}

void addAxes(Graph &g, std::vector<int64_t> axes) {
  nasc::ir::Tensor t;
  t.dtype = DType::Int64;
  t.shape = {static_cast<int64_t>(axes.size())};
  t.i = std::move(axes);
  g.initializers["axes"] = t;
}

/// Shape of output "y" after checkSupported and inferShapes.
Shape inferredShape(Graph g) {
  nasc::ir::checkSupported(g);
  nasc::ir::inferShapes(g);
  return g.shapeOf("y");
}

} // namespace

TEST_CASE("every registered op has a shape rule, a reference forward and one way to reach code") {
  const std::vector<OpDef> &ops = nasc::ir::registeredOps();
  REQUIRE(ops.size() >= 24);
  for (size_t k = 0; k < ops.size(); ++k) {
    const OpDef &op = ops[k];
    INFO(op.name);
    CHECK(op.shape);
    CHECK(op.forward);
    CHECK(static_cast<bool>(op.lower) != !op.removedBy.empty());
    if (op.trainingForward || op.weightGradients)
      CHECK(op.backward);
    if (k > 0)
      CHECK(ops[k - 1].name < op.name);
    REQUIRE(nasc::ir::findOp(op.name) == &op);
  }
  CHECK(nasc::ir::findOp("Softmax") == nullptr);
  CHECK(nasc::ir::findOp("conv") == nullptr);
}

TEST_CASE("an op or attribute outside the registry is rejected naming file, node and name") {
  Graph unknown = graphOf({1, 4}, Node{"sm", "Softmax", {"x"}, {"y"}, {}});
  CHECK_THROWS_WITH(nasc::ir::checkSupported(unknown),
                    Catch::Contains("model.json") && Catch::Contains("'sm'") &&
                        Catch::Contains("op 'Softmax' is not supported"));
  Graph attribute = graphOf({1, 4}, Node{"r", "Relu", {"x"}, {"y"}, {{"alpha", 0.5f}}});
  CHECK_THROWS_WITH(nasc::ir::checkSupported(attribute),
                    Catch::Contains("model.json") && Catch::Contains("'r'") &&
                        Catch::Contains("attribute 'alpha' is not supported"));
}

TEST_CASE("Squeeze and Unsqueeze shapes follow the ONNX spec (attribute and input axes)") {
  CHECK(inferredShape(graphOf({1, 3, 1, 5}, Node{"s", "Squeeze", {"x"}, {"y"}, {}})) ==
        Shape{3, 5});
  CHECK(inferredShape(
            graphOf({1, 3, 1, 5},
                    Node{"s", "Squeeze", {"x"}, {"y"}, {{"axes", std::vector<int64_t>{-2}}}})) ==
        Shape{1, 3, 5});
  Graph input = graphOf({1, 3, 1, 5}, Node{"s", "Squeeze", {"x", "axes"}, {"y"}, {}});
  addAxes(input, {0});
  CHECK(inferredShape(input) == Shape{3, 1, 5});
  Graph notOne =
      graphOf({1, 3}, Node{"s", "Squeeze", {"x"}, {"y"}, {{"axes", std::vector<int64_t>{1}}}});
  CHECK_THROWS_WITH(inferredShape(notOne), Catch::Contains("extent other than 1"));
  Graph unsqueeze = graphOf({3, 4}, Node{"u", "Unsqueeze", {"x", "axes"}, {"y"}, {}});
  addAxes(unsqueeze, {0, -1});
  CHECK(inferredShape(unsqueeze) == Shape{1, 3, 4, 1});
}

TEST_CASE("MatMul takes 2-D inputs; other ranks are refused as not supported") {
  Graph g = graphOf({2, 3}, Node{"m", "MatMul", {"x", "w"}, {"y"}, {}});
  g.initializers["w"] = nasc::ir::Tensor::zeros({3, 4});
  CHECK(inferredShape(g) == Shape{2, 4});
  Graph batched = graphOf({5, 2, 3}, Node{"m", "MatMul", {"x", "w"}, {"y"}, {}});
  batched.initializers["w"] = nasc::ir::Tensor::zeros({5, 3, 4});
  CHECK_THROWS_WITH(inferredShape(batched),
                    Catch::Contains("'m'") && Catch::Contains("not supported"));
}

TEST_CASE("lowering refuses an op its registry entry says a graph pass removes") {
  Graph g = graphOf({2}, Node{"d", "Dropout", {"x"}, {"y"}, {}});
  nasc::ir::inferShapes(g);
  CHECK_THROWS_WITH(nasc::ir::lowerGraph(g),
                    Catch::Contains("'d'") && Catch::Contains("removed by removeNoOps"));
}
