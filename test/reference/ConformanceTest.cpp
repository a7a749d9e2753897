// The reference executor on every applicable ONNX conformance case shipped by Debian's
// libonnx-testdata (node, pytorch-converted, pytorch-operator): the expected outputs are ONNX's
// and PyTorch's own, computed outside nasc.
#include "ir/Error.h"
#include "ir/import/OnnxImporter.h"
#include "ir/ops/OpDef.h"
#include "runtime/reference/Reference.h"

#include <catch2/catch.hpp>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

namespace {

namespace fs = std::filesystem;
using nasc::ir::Tensor;

const fs::path kTestData = "/usr/share/libonnx-testdata/data";

/// Outcome of one case: passed, failed (with why), or not applicable (with why); the ops it uses.
struct CaseResult {
  enum Kind { Passed, Failed, NotApplicable } kind;
  std::string why;
  std::set<std::string> ops = {};
};

/// Empty when `actual` matches `expected` within |a - e| <= atol + rtol |e|, else why not.
std::string compare(const Tensor &actual, const Tensor &expected) {
  if (actual.shape != expected.shape)
    return "shape " + nasc::ir::shapeToString(actual.shape) + " != expected " +
           nasc::ir::shapeToString(expected.shape);
  if (actual.dtype != expected.dtype)
    return "dtype differs";
  if (actual.dtype == nasc::ir::DType::Int64)
    return actual.i == expected.i ? "" : "int64 values differ";
  const double rtol = 1e-4, atol = 1e-4;
  for (size_t k = 0; k < expected.f.size(); ++k)
    if (!(std::abs(actual.f[k] - expected.f[k]) <= atol + rtol * std::abs(expected.f[k])))
      return "element " + std::to_string(k) + ": " + std::to_string(actual.f[k]) + " != expected " +
             std::to_string(expected.f[k]);
  return "";
}

/// The ops of the model file, read with ONNX's own protobuf classes so that models the importer
/// rejects are still sorted by op; throws nasc::Error when the file does not parse.
std::set<std::string> modelOps(const fs::path &model) {
  std::ifstream in(model, std::ios::binary);
  onnx::ModelProto proto;
  if (!proto.ParseFromIstream(&in))
    throw nasc::Error(model.string() + ": unreadable model");
  std::set<std::string> ops;
  for (const auto &node : proto.graph().node())
    ops.insert(node.op_type());
  return ops;
}

CaseResult runCase(const fs::path &dir) {
  const std::set<std::string> ops = modelOps(dir / "model.onnx");
  for (const std::string &op : ops)
    if (!nasc::ir::findOp(op))
      return {CaseResult::NotApplicable, "op " + op};
  nasc::ir::Graph graph;
  try {
    graph = nasc::ir::importOnnx((dir / "model.onnx").string());
  } catch (const nasc::Error &e) {
    return {CaseResult::NotApplicable, std::string("import: ") + e.what()};
  }
  const fs::path data = dir / "test_data_set_0";
  std::map<std::string, Tensor> inputs;
  try {
    for (size_t k = 0; k < graph.inputs.size(); ++k)
      inputs[graph.inputs[k]] =
          nasc::ir::readTensorProto((data / ("input_" + std::to_string(k) + ".pb")).string());
  } catch (const nasc::Error &e) {
    return {CaseResult::NotApplicable, std::string("test data: ") + e.what()};
  }
  std::map<std::string, Tensor> outputs;
  try {
    outputs = nasc::runtime::runReference(graph, inputs);
  } catch (const nasc::Error &e) {
    const std::string what = e.what();
    const bool unsupported = what.find("not supported") != std::string::npos;
    return {unsupported ? CaseResult::NotApplicable : CaseResult::Failed, what};
  }
  for (size_t k = 0; k < graph.outputs.size(); ++k) {
    const Tensor expected =
        nasc::ir::readTensorProto((data / ("output_" + std::to_string(k) + ".pb")).string());
    if (std::string why = compare(outputs.at(graph.outputs[k]), expected); !why.empty())
      return {CaseResult::Failed, "output '" + graph.outputs[k] + "': " + why};
  }
  return {CaseResult::Passed, "", ops};
}

std::vector<fs::path> caseDirs() {
  std::vector<fs::path> dirs;
  for (const char *suite : {"node", "pytorch-converted", "pytorch-operator"})
    for (const auto &entry : fs::directory_iterator(kTestData / suite))
      if (fs::exists(entry.path() / "model.onnx") && fs::exists(entry.path() / "test_data_set_0"))
        dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

} // namespace

TEST_CASE("reference executor matches ONNX conformance outputs on every applicable case") {
  int applicable = 0, passed = 0, otherOps = 0;
  std::vector<std::string> failures, notApplicable;
  std::map<std::string, int> passedByOp;
  for (const fs::path &dir : caseDirs()) {
    const CaseResult result = runCase(dir);
    const std::string name = dir.parent_path().filename().string() + "/" + dir.filename().string();
    if (result.kind == CaseResult::NotApplicable) {
      otherOps += result.why.rfind("op ", 0) == 0;
      if (result.why.rfind("op ", 0) != 0)
        notApplicable.push_back(name + ": " + result.why);
      continue;
    }
    ++applicable;
    if (result.kind == CaseResult::Passed) {
      ++passed;
      for (const std::string &op : result.ops)
        ++passedByOp[op];
    } else
      failures.push_back(name + ": " + result.why);
  }
  std::cout << "not applicable: " << otherOps << " cases use other ops; " << notApplicable.size()
            << " use supported ops with an unsupported attribute, "
            << "output or dtype:\n";
  for (const std::string &n : notApplicable)
    std::cout << "  " << n << "\n";
  for (const std::string &f : failures)
    std::cout << "FAILED " << f << "\n";
  std::cout << "reference conformance: " << passed << " passed of " << applicable
            << " applicable\n";
  CHECK(failures.empty());
  CHECK(applicable >= 100);
  for (const nasc::ir::OpDef &op : nasc::ir::registeredOps()) {
    INFO("registered op " << op.name << " passes no ONNX conformance case");
    CHECK(passedByOp[op.name] > 0);
  }
}
