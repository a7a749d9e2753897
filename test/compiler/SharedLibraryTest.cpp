// `nasc compile` output: a shared library loaded from C through the ABI matches the Eigen
// reference executor; the header names the model's inputs and outputs.
#include "compiler/SharedLibrary.h"
#include "ir/import/ModelLoader.h"
#include "runtime/reference/Reference.h"
#include "test/support/AbiDriver.h"
#include "test/support/Compare.h"
#include "test/support/FreshPath.h"
#include "test/support/RandomTensor.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

using namespace nasc;
namespace fs = std::filesystem;

namespace {

const char *kSmallNet = R"({
  "name": "smallnet",
  "inputs": [{"name": "image", "shape": [2, 3, 11, 9]}],
  "outputs": ["scores"],
  "nodes": [
    {"name": "conv1", "op_type": "Conv", "inputs": ["image", "w1", "b1"], "outputs": ["c1"],
     "attributes": {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 1]}},
    {"name": "bn1", "op_type": "BatchNormalization", "inputs": ["c1", "g1", "be1", "m1", "v1"],
     "outputs": ["n1"], "attributes": {"epsilon": 0.001}},
    {"name": "relu1", "op_type": "Relu", "inputs": ["n1"], "outputs": ["r1"]},
    {"name": "pool", "op_type": "GlobalAveragePool", "inputs": ["r1"], "outputs": ["p"]},
    {"name": "flat", "op_type": "Flatten", "inputs": ["p"], "outputs": ["f"]},
    {"name": "fc", "op_type": "Gemm", "inputs": ["f", "wf", "bf"], "outputs": ["scores"],
     "attributes": {"transB": 1}}
  ],
  "initializers": [
    {"name": "w1", "shape": [8, 3, 3, 3], "init": "he_normal", "seed": 1},
    {"name": "b1", "shape": [8], "init": "he_normal", "seed": 2},
    {"name": "g1", "shape": [8], "init": "he_normal", "seed": 3},
    {"name": "be1", "shape": [8], "init": "he_normal", "seed": 4},
    {"name": "m1", "shape": [8], "init": "he_normal", "seed": 5},
    {"name": "v1", "shape": [8], "data": [1, 2, 0.5, 0.25, 3, 1, 1.5, 0.75]},
    {"name": "wf", "shape": [5, 8], "init": "he_normal", "seed": 6},
    {"name": "bf", "shape": [5], "init": "he_normal", "seed": 7}
  ]
})";

fs::path workDir() { return nasc::test::processDir("shared_library"); }

} // namespace

TEST_CASE("a compiled library run from C through the ABI matches the reference executor", "[abi]") {
  fs::path dir = workDir();
  std::ofstream(dir / "smallnet.json") << kSmallNet;
  ir::Graph graph = ir::loadModel((dir / "smallnet.json").string());
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(graph);
  compiler::emitSharedLibrary(model, {}, (dir / "libsmallnet.so").string(),
                              (dir / "smallnet.h").string());

  REQUIRE(test::buildAbiDriver(dir / "abi_driver") == 0);

  ir::Tensor input = test::normalTensor({2, 3, 11, 9}, 42);
  ir::Graph unfolded = ir::loadModelRaw((dir / "smallnet.json").string());
  auto expected = runtime::runReference(unfolded, {{"image", input}}).at("scores");
  test::AbiDriverRun run = test::runAbiDriver(dir / "abi_driver", dir / "libsmallnet.so", input,
                                              expected.f.size(), dir / "smallnet");
  REQUIRE(run.status == 0);
  CHECK(test::relativeError(run.output, expected.f) <= 1e-4);

  std::ifstream header(dir / "smallnet.h");
  std::string text((std::istreambuf_iterator<char>(header)), std::istreambuf_iterator<char>());
  CHECK(text.find("input  0: 'image' float32 2x3x11x9") != std::string::npos);
  CHECK(text.find("output 0: 'scores' float32 2x5") != std::string::npos);
  CHECK(text.find("int nasc_model_run(nasc_model *model, const float *const *inputs, float *const "
                  "*outputs);") != std::string::npos);
}

TEST_CASE("a library compiled with 3 default threads and run with set_num_threads(2) matches the "
          "reference executor",
          "[abi][parallel]") {
  fs::path dir = workDir() / "threads";
  fs::create_directories(dir);
  std::ofstream(dir / "smallnet.json") << kSmallNet;
  compiler::PolyhedralModel model =
      compiler::lowerToPolyhedral(ir::loadModel((dir / "smallnet.json").string()));
  compiler::CompileOptions options;
  options.threads = 3;
  compiler::emitSharedLibrary(model, options, (dir / "libsmallnet.so").string(), "");

  REQUIRE(test::buildAbiDriver(dir / "abi_driver") == 0);
  ir::Tensor input = test::normalTensor({2, 3, 11, 9}, 42);
  auto expected =
      runtime::runReference(ir::loadModelRaw((dir / "smallnet.json").string()), {{"image", input}})
          .at("scores");
  for (std::string threads : {"", "2"}) {
    CAPTURE(threads);
    test::AbiDriverRun run = test::runAbiDriver(dir / "abi_driver", dir / "libsmallnet.so", input,
                                                expected.f.size(), dir / "smallnet", "", threads);
    REQUIRE(run.status == 0);
    CHECK(test::relativeError(run.output, expected.f) <= 1e-4);
  }
}
