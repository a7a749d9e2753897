// Code generated for a chosen CPU (issue #11): a channel-blocked conv uses the full vector of
// that CPU (512-bit FMAs for AVX-512 ones, also where LLVM's tuning prefers 256 bits; 256-bit
// ones and no zmm register for x86-64-v3), the default trace blocks channels by its lanes, and
// code for a CPU this machine lacks is refused: by the JIT with an error, by a compiled
// library's nasc_model_create with NULL and a message naming the missing features.
#include "compiler/CompiledModel.h"
#include "compiler/SharedLibrary.h"
#include "ir/import/ModelLoader.h"
#include "test/support/AbiDriver.h"
#include "test/support/FreshPath.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

using namespace nasc;
namespace fs = std::filesystem;

namespace {

const char *kConv = R"({"name": "conv", "inputs": [{"name": "x", "shape": [1, 32, 14, 14]}],
  "outputs": ["y"],
  "nodes": [{"name": "op", "op_type": "Conv", "inputs": ["x", "w", "b"], "outputs": ["y"],
             "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}}],
  "initializers": [{"name": "w", "shape": [32, 32, 3, 3], "init": "he_normal", "seed": 1},
                   {"name": "b", "shape": [32], "init": "he_normal", "seed": 2}]})";

fs::path workDir() { return nasc::test::processDir("target_code"); }

ir::Graph convGraph() {
  fs::path path = workDir() / "conv.json";
  std::ofstream(path) << kConv;
  return ir::loadModel(path.string());
}

bool onX86() { return codegen::resolveTarget("native", "generic").triple.rfind("x86_64", 0) == 0; }

compiler::CompileOptions optionsFor(const std::string &cpu) {
  compiler::CompileOptions options;
  options.target = codegen::resolveTarget("native", cpu);
  return options;
}

std::string assemblyFor(const std::string &cpu) {
  compiler::CompileOptions options = optionsFor(cpu);
  compiler::PolyhedralModel model =
      compiler::lowerToPolyhedral(convGraph(), {}, options.target.vector);
  return compiler::generateCode(model, options).assembly();
}

/// Lines of `assembly` holding a packed single FMA (vfmadd*ps) on `reg` registers ("zmm").
int fmaCount(const std::string &assembly, const std::string &reg) {
  std::regex fma("vfn?madd[0-9]+ps\\s.*%" + reg);
  std::istringstream lines(assembly);
  int count = 0;
  for (std::string line; std::getline(lines, line);)
    count += std::regex_search(line, fma) ? 1 : 0;
  return count;
}

/// A CPU this machine cannot run code for, its compile options and the first feature it lacks.
struct LackedCpu {
  std::string cpu;
  compiler::CompileOptions options;
  std::string missing;
};

/// The first CPU among some AVX-512 ones that needs a feature this machine lacks; nullopt (with
/// a warning) on a machine that has them all or is not x86.
std::optional<LackedCpu> cpuThisMachineLacks() {
  if (!onX86())
    return std::nullopt;
  for (const char *cpu : {"x86-64-v4", "tigerlake", "sapphirerapids", "znver5"}) {
    compiler::CompileOptions options = optionsFor(cpu);
    std::vector<std::string> missing = codegen::missingHostFeatures(options.target);
    if (!missing.empty())
      return LackedCpu{cpu, options, missing.front()};
  }
  WARN("this machine has every feature of the AVX-512 CPUs tried; nothing to refuse");
  return std::nullopt;
}

int blockOfDefaultTrace(const std::string &cpu) {
  compiler::PolyhedralModel model =
      compiler::lowerToPolyhedral(convGraph(), {}, optionsFor(cpu).target.vector);
  for (const compiler::ScheduleStep &step : model.kernels.at(0).trace.steps)
    if (step.primitive == "block_channels")
      return step.scalar("block");
  return 0;
}

} // namespace

TEST_CASE("a blocked conv compiled for an AVX-512 CPU emits 512-bit FMAs, none of 256 bits",
          "[target][asm]") {
  if (!onX86())
    return;
  for (const char *cpu : {"skylake-avx512", "x86-64-v4", "znver4"}) {
    CAPTURE(cpu);
    std::string assembly = assemblyFor(cpu);
    CHECK(fmaCount(assembly, "zmm") > 0);
    CHECK(fmaCount(assembly, "ymm") == 0);
  }
}

TEST_CASE("a blocked conv compiled for x86-64-v3 emits 256-bit FMAs and no zmm register",
          "[target][asm]") {
  if (!onX86())
    return;
  std::string assembly = assemblyFor("x86-64-v3");
  CHECK(fmaCount(assembly, "ymm") > 0);
  CHECK(assembly.find("%zmm") == std::string::npos);
}

TEST_CASE("the default trace blocks channels by the target's lanes", "[target]") {
  if (!onX86())
    return;
  CHECK(blockOfDefaultTrace("x86-64-v4") == 16);
  CHECK(blockOfDefaultTrace("x86-64-v3") == 8);
}

TEST_CASE("JIT code for a CPU this machine lacks is refused, naming the missing feature",
          "[target][jit]") {
  std::optional<LackedCpu> lacked = cpuThisMachineLacks();
  if (!lacked)
    return;
  const auto &[cpu, options, missing] = *lacked;
  CHECK_THROWS_WITH(
      compiler::CompiledModel::compile(
          compiler::lowerToPolyhedral(convGraph(), {}, options.target.vector), options),
      Catch::Contains("CPU '" + cpu + "'") && Catch::Contains(missing));
}

TEST_CASE("a library for a CPU this machine lacks returns NULL from nasc_model_create, naming "
          "the missing feature",
          "[target][abi]") {
  std::optional<LackedCpu> lacked = cpuThisMachineLacks();
  if (!lacked)
    return;
  const auto &[cpu, options, missing] = *lacked;
  fs::path dir = workDir();
  fs::path library = dir / "libconv_other_cpu.so";
  compiler::emitSharedLibrary(compiler::lowerToPolyhedral(convGraph(), {}, options.target.vector),
                              options, library.string(), (dir / "conv_other_cpu.h").string());
  std::string driver = (dir / "abi_driver").string();
  REQUIRE(test::buildAbiDriver(driver) == 0);
  fs::path err = dir / "create_error.txt";
  std::string run = driver + " " + library.string() + " /dev/null /dev/null 2> " + err.string();
  int status = std::system(run.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 10);
  std::ifstream in(err);
  std::string message((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(message.find("compiled for CPU '" + cpu + "'") != std::string::npos);
  CHECK(message.find(missing) != std::string::npos);

  std::ifstream header(dir / "conv_other_cpu.h");
  std::string text((std::istreambuf_iterator<char>(header)), std::istreambuf_iterator<char>());
  CHECK(text.find("cpu: " + cpu) != std::string::npos);
  CHECK(text.find(missing) != std::string::npos);
}
