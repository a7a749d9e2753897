// `nasc compile --target TRIPLE` without the cross compiler on PATH: one clear error naming the
// compiler and Debian's package, a non-zero exit, no library written.
#include "test/support/CliRun.h"
#include "test/support/FreshPath.h"
#include "test/support/ScopedEnv.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

TEST_CASE("compile --target aarch64-linux-gnu without aarch64-linux-gnu-gcc names the Debian "
          "package",
          "[cli][link]") {
  const std::filesystem::path dir = nasc::test::processDir("cli");
  const std::filesystem::path model = dir / "relu.json", so = dir / "no_cross_gcc.so";
  std::ofstream(model) << R"({"name": "relu", "inputs": [{"name": "x", "shape": [1, 4, 2, 2]}],
    "outputs": ["y"], "nodes": [{"name": "relu", "op_type": "Relu", "inputs": ["x"],
    "outputs": ["y"]}], "initializers": []})";
  std::filesystem::remove(so);
  nasc::test::ScopedEnv path("PATH", "/nonexistent");
  nasc::test::ScopedEnv cc("CC", std::nullopt);
  const nasc::test::CliResult result = nasc::test::runNasc(
      "compile " + model.string() + " --target aarch64-linux-gnu -o " + so.string());
  INFO(result.output);
  CHECK(result.status != 0);
  CHECK(result.output.find("'aarch64-linux-gnu-gcc'") != std::string::npos);
  CHECK(result.output.find("apt-get install gcc-aarch64-linux-gnu") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(so));
}
