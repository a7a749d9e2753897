// A tiny ResNet exported by PyTorch (test/ir/lower_resnet_block/make.py), loaded through
// loadModel (BN folding) and lowered: the kernels fuse conv + residual + ReLU and reproduce
// PyTorch's logits; the built-in ResNet-18 lowers to one kernel per conv with every
// residual Add and ReLU fused, and the conventional FLOP count.
#include "LowerInterpreter.h"
#include "ir/import/ModelLoader.h"
#include "ir/import/OnnxImporter.h"
#include "ir/lower/Lower.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>

namespace {

const std::string kDir = std::string(NASC_SOURCE_DIR) + "/test/ir/lower_resnet_block/";

/// For each kernel call, its nodes' op types joined by '+' ("Conv+Add+Relu").
std::vector<std::string> kernelOps(const nasc::ir::Graph &graph, const nasc::ir::Program &program) {
  std::vector<std::string> result;
  for (const auto &call : program.calls) {
    std::string ops;
    for (const auto &name : call.nodes)
      for (const auto &node : graph.nodes)
        if (node.name == name)
          ops += (ops.empty() ? "" : "+") + node.op_type;
    result.push_back(ops);
  }
  return result;
}

/// Points of a statement's box (its extents' product).
double boxPoints(const nasc::ir::Statement &st) {
  double points = 1;
  for (int64_t e : st.extents)
    points *= static_cast<double>(e);
  return points;
}

} // namespace

TEST_CASE("a PyTorch ResNet block lowers to fused kernels that reproduce PyTorch's logits") {
  nasc::ir::Graph graph = nasc::ir::loadModel(kDir + "model.onnx");
  nasc::ir::Program program = nasc::ir::lowerGraph(graph);
  CHECK(kernelOps(graph, program) ==
        std::vector<std::string>{"Conv+Relu", "MaxPool", "BatchNormalization", "Conv+Relu", "Conv",
                                 "Conv+Add+Relu", "GlobalAveragePool", "Flatten", "Gemm"});
  for (const auto &call : program.calls)
    CHECK(nasc::lowertest::outOfBoundsAccesses(call.kernel).empty());
  nasc::ir::Tensor x = nasc::ir::readTensorProto(kDir + "input_0.pb");
  nasc::ir::Tensor expected = nasc::ir::readTensorProto(kDir + "output_0.pb");
  auto out = nasc::lowertest::runProgram(program, {x.f});
  REQUIRE(out.at(0).size() == expected.f.size());
  for (size_t k = 0; k < expected.f.size(); ++k)
    CHECK(out[0][k] == Approx(expected.f[k]).margin(1e-4));
}

TEST_CASE("ResNet-18 lowers to one kernel per conv, residual Adds and ReLUs fused") {
  nasc::ir::Graph graph =
      nasc::ir::loadModel(std::string(NASC_SOURCE_DIR) + "/models/resnet18.json");
  nasc::ir::Program program = nasc::ir::lowerGraph(graph);
  std::map<std::string, int> counts;
  for (const auto &ops : kernelOps(graph, program))
    ++counts[ops];
  CHECK(counts == std::map<std::string, int>{{"Conv+Relu", 9},
                                             {"Conv+Add+Relu", 8},
                                             {"Conv", 3},
                                             {"MaxPool", 1},
                                             {"GlobalAveragePool", 1},
                                             {"Flatten", 1},
                                             {"Gemm", 1}});
  double convFlops = 0;
  for (const auto &node : graph.nodes)
    if (node.op_type == "Conv") {
      const auto &w = graph.shapeOf(node.inputs[1]);
      const auto &y = graph.shapeOf(node.outputs[0]);
      convFlops += 2.0 * static_cast<double>(nasc::ir::numElements(y) * w[1] * w[2] * w[3]);
    }
  double kernelFlops = 0;
  for (const auto &call : program.calls)
    if (call.kernel.statements.size() >= 2 && call.kernel.statements[1].depth() == 7)
      kernelFlops += 2.0 * boxPoints(call.kernel.statements[1]);
  CHECK(kernelFlops == Approx(convFlops));
  CHECK(convFlops == Approx(3.6e9).epsilon(0.02));
}
