// `nasc compile --target TRIPLE` without the cross compiler on PATH: one clear error naming the
// compiler and Debian's package, a non-zero exit, no library written.
#include "test/support/CliRun.h"
#include "test/support/ScopedEnv.h"

#include <catch2/catch.hpp>

#include <filesystem>

TEST_CASE("compile --target aarch64-linux-gnu without aarch64-linux-gnu-gcc names the Debian "
          "package",
          "[cli][link]") {
  const std::filesystem::path so =
      std::filesystem::path(NASC_BINARY_DIR) / "test" / "cli" / "no_cross_gcc.so";
  std::filesystem::remove(so);
  nasc::test::ScopedEnv path("PATH", "/nonexistent");
  nasc::test::ScopedEnv cc("CC", std::nullopt);
  const nasc::test::CliResult result =
      nasc::test::runNasc("compile " NASC_SOURCE_DIR "/models/resnet18.json --target "
                          "aarch64-linux-gnu -o " + so.string());
  INFO(result.output);
  CHECK(result.status != 0);
  CHECK(result.output.find("'aarch64-linux-gnu-gcc'") != std::string::npos);
  CHECK(result.output.find("apt-get install gcc-aarch64-linux-gnu") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(so));
}
