// Test helpers for the lowering: ONNX conformance cases (/usr/share/libonnx-testdata) read into
// a Graph by a minimal reader of one-node models, independent of ir/import.
#pragma once

#include "ir/Graph.h"

#include <string>
#include <vector>

namespace nasc::lowertest {

/// One ONNX test case: its graph, the input tensors fed to the graph inputs (graph order) and
/// the expected output tensors.
struct OnnxCase {
  ir::Graph graph;
  std::vector<ir::Tensor> inputs;
  std::vector<ir::Tensor> outputs;
};

/// Reads `<root>/<name>/model.onnx` and `test_data_set_0`, root being
/// /usr/share/libonnx-testdata/data/<suite>. Model inputs at `constantInputs` positions become
/// initializers holding their test data (e.g. BatchNormalization statistics).
OnnxCase readOnnxCase(const std::string &suite, const std::string &name,
                      const std::vector<size_t> &constantInputs = {});

/// The same case loaded through the project's pipeline instead: ir::loadModel (importOnnx and
/// prepareForInference), with the test data fed to the resulting graph inputs in order.
OnnxCase loadOnnxCase(const std::string &suite, const std::string &name);

} // namespace nasc::lowertest
