// The reference executor on torchvision ResNet-18/34 and ResNeXt-50 (seeded random weights, BN
// statistics randomised) exported by tools/export_torchvision.py, against PyTorch's own output.
#include "TestSupport.h"
#include "ir/Error.h"
#include "ir/import/OnnxImporter.h"
#include "runtime/reference/Reference.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using nasc::ir::Tensor;

const fs::path kExportDir = fs::path(NASC_BINARY_DIR) / "test-data" / "torchvision";
const char *const kShape = "2x3x64x64";

/// A little-endian float32, C-order .npy file (NumPy format version 1 or 2) as a Tensor.
Tensor readNpy(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8];
  if (!in.read(magic, 8) || std::string(magic + 1, 5) != "NUMPY")
    throw nasc::Error(path.string() + ": not a .npy file");
  uint32_t headerLength = 0;
  in.read(reinterpret_cast<char *>(&headerLength), magic[6] == 1 ? 2 : 4);
  std::string header(headerLength, '\0');
  in.read(header.data(), headerLength);
  std::smatch shapeMatch;
  if (header.find("'<f4'") == std::string::npos ||
      header.find("'fortran_order': False") == std::string::npos ||
      !std::regex_search(header, shapeMatch, std::regex(R"('shape': \(([^)]*)\))")))
    throw nasc::Error(path.string() + ": only little-endian float32 C-order arrays are read");
  Tensor t;
  std::istringstream dims(shapeMatch[1]);
  for (std::string dim; std::getline(dims, dim, ',');)
    if (dim.find_first_not_of(' ') != std::string::npos)
      t.shape.push_back(std::stoll(dim));
  t.f.resize(static_cast<size_t>(t.size()));
  if (!in.read(reinterpret_cast<char *>(t.f.data()), t.size() * 4))
    throw nasc::Error(path.string() + ": data is shorter than its shape");
  return t;
}

/// Runs tools/export_torchvision.py once for all models at kShape unless its files exist. The
/// export goes to a directory of this process, renamed to kExportDir when complete, so that a
/// test running in parallel (ctest -j) never reads a half-written file.
void exportModels() {
  if (fs::exists(kExportDir))
    return;
  const fs::path staging = kExportDir.string() + ".tmp" + std::to_string(getpid());
  const std::string command = std::string("/usr/bin/python3 ") + NASC_SOURCE_DIR +
                              "/tools/export_torchvision.py --models "
                              "resnet18,resnet34,resnext50_32x4d --shape " +
                              kShape + " --seed 0 --out " + staging.string() + " > " +
                              staging.string() + ".log 2>&1";
  fs::create_directories(staging);
  INFO("command: " << command);
  REQUIRE(std::system(command.c_str()) == 0);
  std::error_code exportedByAnother;
  fs::rename(staging, kExportDir, exportedByAnother);
  if (exportedByAnother)
    fs::remove_all(staging);
}

void checkModel(const std::string &model) {
  exportModels();
  const std::string stem = (kExportDir / (model + "_" + kShape)).string();
  const nasc::ir::Graph graph = nasc::ir::importOnnx(stem + ".onnx");
  REQUIRE(graph.inputs.size() == 1);
  REQUIRE(graph.outputs.size() == 1);
  const auto outputs =
      nasc::runtime::runReference(graph, {{graph.inputs[0], readNpy(stem + "_input.npy")}});
  nasc::test::checkClose(outputs.at(graph.outputs[0]), readNpy(stem + "_output.npy"), 1e-3, 1e-3);
}

} // namespace

TEST_CASE("reference ResNet-18 matches PyTorch on a seeded torchvision export") {
  checkModel("resnet18");
}

TEST_CASE("reference ResNet-34 matches PyTorch on a seeded torchvision export") {
  checkModel("resnet34");
}

TEST_CASE("reference ResNeXt-50 (32x4d, grouped convs) matches PyTorch on a torchvision export") {
  checkModel("resnext50_32x4d");
}
