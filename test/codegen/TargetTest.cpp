// The target description (codegen/TargetDescription.h): the CPU names and x86-64 levels LLVM
// defines, the vector unit each implies, the features a library checks when it is loaded, and
// refusals (unknown CPU, a host CPU for another triple, running another triple here).
#include "codegen/TargetDescription.h"
#include "ir/Error.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>

using namespace nasc;

namespace {

bool contains(const std::vector<std::string> &items, const std::string &item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

/// Whether this process runs x86-64 code (the x86 CPU names below need it).
bool onX86() { return codegen::resolveTarget("native", "generic").triple.rfind("x86_64", 0) == 0; }

/// Sets $NASC_CPU for its lifetime and restores the previous value.
class CpuOverride {
public:
  explicit CpuOverride(const char *cpu) {
    const char *old = std::getenv("NASC_CPU");
    had_ = old != nullptr;
    old_ = old ? old : "";
    setenv("NASC_CPU", cpu, 1);
  }
  ~CpuOverride() {
    if (had_)
      setenv("NASC_CPU", old_.c_str(), 1);
    else
      unsetenv("NASC_CPU");
  }
  CpuOverride(const CpuOverride &) = delete;
  CpuOverride &operator=(const CpuOverride &) = delete;

private:
  bool had_ = false;
  std::string old_;
};

} // namespace

TEST_CASE("x86-64-v3 is AVX2: 8 lanes, 16 registers; a library checks avx2 and fma",
          "[codegen][target]") {
  if (!onX86())
    return;
  codegen::Target t = codegen::resolveTarget("native", "x86-64-v3");
  CHECK(t.cpu == "x86-64-v3");
  CHECK(t.native);
  CHECK(t.vector.lanes == 8);
  CHECK(t.vector.registers == 16);
  CHECK(t.vector.bits() == 256);
  CHECK(t.has("avx2"));
  CHECK_FALSE(t.has("avx512f"));
  std::vector<std::string> checked = codegen::runtimeCheckedFeatures(t);
  CHECK(contains(checked, "avx2"));
  CHECK(contains(checked, "fma"));
  CHECK_FALSE(contains(checked, "avx512f"));
}

TEST_CASE("AVX-512 CPUs get 16 lanes and 32 registers, also where LLVM's tuning prefers 256 bits",
          "[codegen][target]") {
  if (!onX86())
    return;
  for (const char *cpu : {"x86-64-v4", "skylake-avx512", "znver4"}) {
    CAPTURE(cpu);
    codegen::Target t = codegen::resolveTarget("native", cpu);
    CHECK(t.vector.lanes == 16);
    CHECK(t.vector.registers == 32);
    CHECK(contains(codegen::runtimeCheckedFeatures(t), "avx512f"));
  }
}

TEST_CASE("the host target has the machine's own features", "[codegen][target]") {
  codegen::Target t = codegen::resolveTarget("native", "host");
  CHECK(t.native);
  CHECK(t.cpu != "host");
  CHECK(codegen::missingHostFeatures(t).empty());
  CHECK_NOTHROW(codegen::requireRunnableHere(t));
}

TEST_CASE("$NASC_CPU is the default CPU; an explicit CPU wins", "[codegen][target]") {
  if (!onX86())
    return;
  CpuOverride forced("x86-64-v2");
  CHECK(codegen::defaultCpu() == "x86-64-v2");
  CHECK(codegen::resolveTarget().cpu == "x86-64-v2");
  CHECK(codegen::resolveTarget().vector.lanes == 4);
  CHECK(codegen::resolveTarget("native", "x86-64-v3").cpu == "x86-64-v3");
}

TEST_CASE("aarch64 cross target: generic CPU, NEON's 4 lanes and 32 registers, not runnable here",
          "[codegen][target]") {
  codegen::Target t = codegen::resolveTarget("aarch64-linux-gnu");
  CHECK(t.triple == "aarch64-unknown-linux-gnu");
  CHECK(t.cpu == "generic");
  CHECK(t.vector.lanes == 4);
  CHECK(t.vector.registers == 32);
  CHECK(t.has("neon"));
  CHECK(codegen::runtimeCheckedFeatures(t).empty());
  if (onX86()) {
    CHECK_FALSE(t.native);
    CHECK_THROWS_WITH(codegen::missingHostFeatures(t), Catch::Contains("cannot run"));
  }
  CHECK(codegen::resolveTarget("aarch64-linux-gnu", "neoverse-n1").cpu == "neoverse-n1");
}

TEST_CASE("an unknown CPU, or host with another triple, is an error naming it",
          "[codegen][target]") {
  CHECK_THROWS_WITH(codegen::resolveTarget("native", "nonsense-cpu"),
                    Catch::Contains("unknown CPU 'nonsense-cpu'") && Catch::Contains("host"));
  if (onX86())
    CHECK_THROWS_WITH(codegen::resolveTarget("aarch64-linux-gnu", "host"),
                      Catch::Contains("'host'"));
  CHECK_THROWS_AS(codegen::resolveTarget("nonsense-unknown-triple"), Error);
}
