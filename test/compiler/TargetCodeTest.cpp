// Code generated for a chosen CPU (issue #11): a channel-blocked conv uses the full vector of
// that CPU (512-bit FMAs for AVX-512 ones, also where LLVM's tuning prefers 256 bits; 256-bit
// ones and no zmm register for x86-64-v3), the default trace blocks channels by its lanes, and
// code for a CPU this machine lacks is refused: by the JIT with an error, by a compiled
// library's nasc_model_create with NULL and a message naming the missing features; the FMA loop
// of a register tile keeps its accumulators in registers and loads its operands with plain
// vector loads and broadcasts.
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

/// CIFAR ResNeXt-29's stage-2 1x1 256 -> 512 at 16x16 after a 1x1 that gives it a blocked
/// input: with flat offsets LLVM 19 loaded its weights by gathers and kept its accumulators in
/// memory on AVX-512 (7 GFLOP/s; docs/performance.md).
const char *kPointwise16 = R"({"name": "pw16", "inputs": [{"name": "x", "shape": [1, 256, 16, 16]}],
  "outputs": ["y"],
  "nodes": [{"name": "pre", "op_type": "Conv", "inputs": ["x", "w0", "b0"], "outputs": ["p"],
             "attributes": {"kernel_shape": [1, 1]}},
            {"name": "op", "op_type": "Conv", "inputs": ["p", "w", "b"], "outputs": ["y"],
             "attributes": {"kernel_shape": [1, 1]}}],
  "initializers": [{"name": "w0", "shape": [256, 256, 1, 1], "init": "he_normal", "seed": 1},
                   {"name": "b0", "shape": [256], "init": "he_normal", "seed": 2},
                   {"name": "w", "shape": [512, 256, 1, 1], "init": "he_normal", "seed": 3},
                   {"name": "b", "shape": [512], "init": "he_normal", "seed": 4}]})";

/// A grouped 3x3 (group 4) at 14x14 after a dense 3x3, as ResNet-18's layer3 with group(4).
const char *kGrouped14 = R"({"name": "g4", "inputs": [{"name": "x", "shape": [1, 256, 14, 14]}],
  "outputs": ["y"],
  "nodes": [{"name": "pre", "op_type": "Conv", "inputs": ["x", "w0", "b0"], "outputs": ["p"],
             "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
            {"name": "op", "op_type": "Conv", "inputs": ["p", "w", "b"], "outputs": ["y"],
             "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "group": 4}}],
  "initializers": [{"name": "w0", "shape": [256, 256, 3, 3], "init": "he_normal", "seed": 1},
                   {"name": "b0", "shape": [256], "init": "he_normal", "seed": 2},
                   {"name": "w", "shape": [256, 64, 3, 3], "init": "he_normal", "seed": 3},
                   {"name": "b", "shape": [256], "init": "he_normal", "seed": 4}]})";

fs::path workDir() { return nasc::test::processDir("target_code"); }

ir::Graph convGraph(const char *spec = kConv) {
  fs::path path = workDir() / "conv.json";
  std::ofstream(path) << spec;
  return ir::loadModel(path.string());
}

bool onX86() { return codegen::resolveTarget("native", "generic").triple.rfind("x86_64", 0) == 0; }

compiler::CompileOptions optionsFor(const std::string &cpu) {
  compiler::CompileOptions options;
  options.target = codegen::resolveTarget("native", cpu);
  return options;
}

std::string assemblyFor(const std::string &cpu, const char *spec = kConv) {
  compiler::CompileOptions options = optionsFor(cpu);
  compiler::PolyhedralModel model =
      compiler::lowerToPolyhedral(convGraph(spec), {}, options.target.vector);
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

/// Counts in one straight-line block of assembly (from a label or a jump to the next).
struct BlockCounts {
  int fmas = 0;
  int vectorStores = 0;
  int gathers = 0;
};

/// The blocks of `assembly` that hold a packed single FMA, each with its FMAs, vector stores
/// (vmov* of an xmm/ymm/zmm register to memory) and gathers.
std::vector<BlockCounts> fmaBlocks(const std::string &assembly) {
  std::regex label("^\\S+:"), jump("^\\s+j[a-z]+\\s"), fma("vfn?madd[0-9]+ps\\s");
  std::regex store("vmov\\w*\\s+%[xyz]mm[0-9]+, .*\\("), gather("vgather");
  std::vector<BlockCounts> blocks;
  BlockCounts block;
  auto close = [&] {
    if (block.fmas > 0)
      blocks.push_back(block);
    block = {};
  };
  std::istringstream lines(assembly);
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, label))
      close();
    block.fmas += std::regex_search(line, fma) ? 1 : 0;
    block.vectorStores += std::regex_search(line, store) ? 1 : 0;
    block.gathers += std::regex_search(line, gather) ? 1 : 0;
    if (std::regex_search(line, jump))
      close();
  }
  close();
  return blocks;
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

TEST_CASE("the FMA loops of 1x1 and grouped convs keep their accumulators in registers and "
          "gather nothing",
          "[target][asm]") {
  if (!onX86())
    return;
  for (const char *spec : {kPointwise16, kGrouped14})
    for (const char *cpu : {"x86-64-v4", "znver4", "skylake-avx512", "x86-64-v3"}) {
      CAPTURE(cpu, std::string(spec).substr(0, 16));
      std::vector<BlockCounts> blocks = fmaBlocks(assemblyFor(cpu, spec));
      CHECK(!blocks.empty());
      for (const BlockCounts &block : blocks) {
        CHECK(block.vectorStores == 0);
        CHECK(block.gathers == 0);
      }
    }
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
