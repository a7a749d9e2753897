// Helpers of the reference executor tests: one-node graphs, ONNX test data, closeness checks.
#pragma once

#include "ir/Graph.h"

#include <map>
#include <string>
#include <vector>

namespace nasc::test {

/// A one-node graph with a prepared input and the output expected from an independent source.
struct NodeCase {
  ir::Graph graph;
  std::map<std::string, ir::Tensor> inputs;
  ir::Tensor expected;
};

/// Graph of one node `opType` with `attributes`, reading graph inputs "in0".."in{n-1}" (shapes
/// of `inputs`) and writing graph output "y".
ir::Graph singleNodeGraph(const std::string &opType,
                          const std::map<std::string, ir::Attribute> &attributes,
                          const std::vector<ir::Tensor> &inputs);

/// The one-node graph of `opType` on ONNX's test data of node case `caseName`
/// (/usr/share/libonnx-testdata/data/node/<caseName>/test_data_set_0: input_0.pb ..
/// input_{numInputs-1}.pb, expected output_0.pb).
NodeCase onnxNodeCase(const std::string &caseName, const std::string &opType,
                      const std::map<std::string, ir::Attribute> &attributes, size_t numInputs);

/// Float32 tensor of `shape` with values uniform in [-1, 1) from a generator seeded by `seed`.
ir::Tensor randomTensor(const ir::Shape &shape, unsigned seed);

/// Catch2 checks that `actual` has `expected`'s shape and |a - e| <= atol + rtol |e| everywhere
/// (reports the first differing element).
void checkClose(const ir::Tensor &actual, const ir::Tensor &expected, double rtol = 1e-5,
                double atol = 1e-5);

} // namespace nasc::test
