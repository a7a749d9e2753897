// Which C compiler links a library: $CC, else cc for "native", else Debian's <triple>-gcc on
// PATH; a missing cross compiler is an error naming it and its Debian package; the host's cc
// links with lld when ld.lld is on PATH.
#include "compiler/LinkCompiler.h"
#include "ir/Error.h"
#include "test/support/ScopedEnv.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

using namespace nasc;

TEST_CASE("debianTriple drops the vendor of a four-part triple", "[link]") {
  CHECK(compiler::debianTriple("aarch64-unknown-linux-gnu") == "aarch64-linux-gnu");
  CHECK(compiler::debianTriple("x86_64-pc-linux-gnu") == "x86_64-linux-gnu");
  CHECK(compiler::debianTriple("aarch64-linux-gnu") == "aarch64-linux-gnu");
  CHECK(compiler::debianTriple("arm-linux-gnueabihf") == "arm-linux-gnueabihf");
}

TEST_CASE("linkCompiler takes $CC, else cc for native, else <triple>-gcc on PATH", "[link]") {
  const std::filesystem::path bin = std::filesystem::path(NASC_BINARY_DIR) / "test" / "link_bin";
  std::filesystem::create_directories(bin);
  const std::filesystem::path gcc = bin / "riscv64-linux-gnu-gcc";
  std::filesystem::copy_file("/bin/true", gcc, std::filesystem::copy_options::overwrite_existing);
  test::ScopedEnv path("PATH", bin.string());
  {
    test::ScopedEnv cc("CC", std::nullopt);
    CHECK(compiler::linkCompiler("native") == "cc");
    CHECK(compiler::linkCompiler("riscv64-unknown-linux-gnu") == "riscv64-linux-gnu-gcc");
  }
  test::ScopedEnv cc("CC", "my-cross-cc");
  CHECK(compiler::linkCompiler("native") == "my-cross-cc");
  CHECK(compiler::linkCompiler("aarch64-linux-gnu") == "my-cross-cc");
}

TEST_CASE("a cross link without its compiler on PATH names the compiler and Debian's package",
          "[link]") {
  test::ScopedEnv path("PATH", "/nonexistent");
  test::ScopedEnv cc("CC", "");
  CHECK_THROWS_WITH(compiler::linkCompiler("aarch64-linux-gnu"),
                    Catch::Contains("'aarch64-linux-gnu-gcc'") &&
                        Catch::Contains("apt-get install gcc-aarch64-linux-gnu"));
  CHECK_THROWS_WITH(compiler::linkCompiler("x86_64-unknown-linux-gnu"),
                    Catch::Contains("'x86_64-linux-gnu-gcc'") &&
                        Catch::Contains("gcc-x86-64-linux-gnu"));
}

TEST_CASE("the host's cc links with lld when ld.lld is on PATH, and only then", "[link]") {
  const std::filesystem::path bin = std::filesystem::path(NASC_BINARY_DIR) / "test" / "lld_bin";
  std::filesystem::create_directories(bin);
  std::filesystem::copy_file("/bin/true", bin / "ld.lld",
                             std::filesystem::copy_options::overwrite_existing);
  const std::vector<std::string> lld{"-fuse-ld=lld"};
  {
    test::ScopedEnv path("PATH", bin.string());
    test::ScopedEnv cc("CC", std::nullopt);
    CHECK(compiler::linkerFlags("native") == lld);
    CHECK(compiler::linkerFlags("aarch64-linux-gnu").empty());
  }
  {
    test::ScopedEnv path("PATH", bin.string());
    test::ScopedEnv cc("CC", "my-cc");
    CHECK(compiler::linkerFlags("native").empty());
  }
  test::ScopedEnv path("PATH", "/nonexistent");
  test::ScopedEnv cc("CC", std::nullopt);
  CHECK(compiler::linkerFlags("native").empty());
}
