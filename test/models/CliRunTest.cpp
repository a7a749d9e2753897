// `nasc run` on a torchvision export: the .npy it writes matches PyTorch's output.
#include "ir/Npy.h"
#include "test/support/Compare.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

TEST_CASE("nasc run on torchvision ResNet-18 writes PyTorch's output", "[models][cli]") {
  fs::path dir = fs::path(NASC_BINARY_DIR) / "torchvision";
  std::string stem = (dir / "resnet18_1x3x160x128").string();
  REQUIRE(fs::exists(stem + ".onnx"));
  std::string out = (dir / "resnet18_cli_output.npy").string();
  std::string cmd = std::string(NASC_BINARY_DIR) + "/tools/nasc run " + stem + ".onnx --input " +
                    stem + "_input.npy --output " + out + " > /dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  nasc::ir::Tensor got = nasc::ir::readNpy(out), want = nasc::ir::readNpy(stem + "_output.npy");
  REQUIRE(got.shape == want.shape);
  CHECK(nasc::test::relativeError(got.f, want.f) <= 1e-4);
}
