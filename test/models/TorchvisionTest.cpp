// Real models: torchvision ResNet-18, ResNet-34, ResNeXt-50, MobileNetV2 and the CIFAR form of
// ResNet-34 (seeded random weights, exported to ONNX at opset 13 by tools/export_torchvision.py)
// compiled by nasc match PyTorch's outputs, both through the JIT and through the shared library
// loaded from C.
#include "compiler/CompiledModel.h"
#include "compiler/SharedLibrary.h"
#include "ir/Npy.h"
#include "ir/import/ModelLoader.h"
#include "test/support/AbiDriver.h"
#include "test/support/Compare.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace nasc;
namespace fs = std::filesystem;

namespace {

const fs::path kModels = fs::path(NASC_BINARY_DIR) / "torchvision";

std::vector<float> runSharedLibrary(const compiler::PolyhedralModel &model, const std::string &stem,
                                    const ir::Tensor &input, size_t outputSize) {
  fs::path dir = kModels / "lib";
  fs::create_directories(dir);
  fs::path so = dir / ("lib" + stem + ".so");
  compiler::emitSharedLibrary(model, {}, so.string(), "");
  // One driver per model: the tests run in parallel (ctest -j) and must not rebuild a binary
  // another one is executing.
  fs::path driver = dir / ("abi_driver_" + stem);
  REQUIRE(test::buildAbiDriver(driver) == 0);
  test::AbiDriverRun run = test::runAbiDriver(driver, so, input, outputSize, dir / stem);
  REQUIRE(run.status == 0);
  return run.output;
}

void checkAgainstPyTorch(const std::string &stem) {
  fs::path onnx = kModels / (stem + ".onnx");
  if (!fs::exists(onnx))
    FAIL("missing " << onnx << ": the export_torchvision ctest fixture did not run");
  ir::Tensor input = ir::readNpy((kModels / (stem + "_input.npy")).string());
  ir::Tensor want = ir::readNpy((kModels / (stem + "_output.npy")).string());

  compiler::PolyhedralModel lowered = compiler::lowerToPolyhedral(ir::loadModel(onnx.string()));
  std::vector<float> fromLibrary = runSharedLibrary(lowered, stem, input, want.f.size());
  CHECK(test::relativeError(fromLibrary, want.f) <= 1e-4);

  auto jit = compiler::CompiledModel::compile(ir::loadModel(onnx.string()));
  std::vector<ir::Tensor> got = jit->run({input});
  REQUIRE(got.at(0).shape == want.shape);
  double err = test::relativeError(got[0].f, want.f);
  INFO(stem << ": relative error " << err);
  CHECK(err <= 1e-4);
}

} // namespace

TEST_CASE("torchvision ResNet-18 at batch 2, 224x224 matches PyTorch", "[models]") {
  checkAgainstPyTorch("resnet18_2x3x224x224");
}

TEST_CASE("torchvision ResNet-18 at 1x3x160x128 (non-square) matches PyTorch", "[models]") {
  checkAgainstPyTorch("resnet18_1x3x160x128");
}

TEST_CASE("torchvision ResNet-34 at batch 2, 224x224 matches PyTorch", "[models]") {
  checkAgainstPyTorch("resnet34_2x3x224x224");
}

TEST_CASE("torchvision ResNet-34 at 1x3x160x128 (non-square) matches PyTorch", "[models]") {
  checkAgainstPyTorch("resnet34_1x3x160x128");
}

TEST_CASE("torchvision ResNeXt-50 32x4d at batch 2, 224x224 matches PyTorch", "[models]") {
  checkAgainstPyTorch("resnext50_32x4d_2x3x224x224");
}

TEST_CASE("torchvision ResNeXt-50 32x4d at 1x3x160x128 (non-square) matches PyTorch", "[models]") {
  checkAgainstPyTorch("resnext50_32x4d_1x3x160x128");
}

TEST_CASE("CIFAR ResNet-34 (3x3 stem, no maxpool, 10 classes) at 1x3x32x32 matches PyTorch",
          "[models]") {
  checkAgainstPyTorch("cifar_resnet34_1x3x32x32");
}

TEST_CASE("torchvision MobileNetV2 (ReLU6 as Clip) at 1x3x224x224 matches PyTorch", "[models]") {
  checkAgainstPyTorch("mobilenet_v2_1x3x224x224");
}
