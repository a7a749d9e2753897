// Compiling a model for aarch64-linux-gnu with `nasc compile --target` and running the library
// under qemu-aarch64 through test/compiler/abi_driver.c, cross-compiled for AArch64; the
// output is compared with the host's reference executor (Eigen) on the same input.
#pragma once

#include "compiler/LinkCompiler.h"
#include "ir/import/ModelLoader.h"
#include "runtime/reference/Reference.h"
#include "test/support/AbiDriver.h"
#include "test/support/CliRun.h"
#include "test/support/Compare.h"
#include "test/support/RandomTensor.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace nasc::test {

inline const std::string kAArch64 = "aarch64-linux-gnu";

/// The command prefix that runs an AArch64 Linux executable on this host.
inline std::string qemuAArch64() {
  return std::string(NASC_QEMU_AARCH64) + " -L " + NASC_AARCH64_SYSROOT;
}

/// <build dir>/test/aarch64/<name>, created: one directory per test, so that tests running in
/// parallel never share a library or a driver.
inline std::filesystem::path aarch64Dir(const std::string &name) {
  std::filesystem::path dir = std::filesystem::path(NASC_BINARY_DIR) / "test" / "aarch64" / name;
  std::filesystem::create_directories(dir);
  return dir;
}

/// Writes `text` to dir/file; the path.
inline std::filesystem::path writeFile(const std::filesystem::path &dir, const std::string &file,
                                       const std::string &text) {
  std::ofstream(dir / file) << text;
  return dir / file;
}

/// `nasc compile MODEL [--schedule SCHEDULE] --target aarch64-linux-gnu` into dir/libmodel.so
/// (with dir/model.h); the library's path. Fails the test if the command fails.
inline std::filesystem::path compileForAArch64(const std::filesystem::path &dir,
                                               const std::filesystem::path &model,
                                               const std::filesystem::path &schedule = {}) {
  const std::filesystem::path so = dir / "libmodel.so";
  const CliResult compiled = runNasc(
      "compile " + model.string() + (schedule.empty() ? "" : " --schedule " + schedule.string()) +
      " --target " + kAArch64 + " -o " + so.string() + " --header " + (dir / "model.h").string());
  INFO(compiled.output);
  REQUIRE(compiled.status == 0);
  return so;
}

/// The relative error (relativeError) of the AArch64 library `so`, run under qemu-aarch64 with
/// `threads` (empty: the library's default) on normalTensor(input shape, 7), against
/// runtime::runReference on `reference` (a model file with the same single input and output).
inline double qemuReferenceError(const std::filesystem::path &dir, const std::filesystem::path &so,
                                 const std::filesystem::path &reference,
                                 const std::string &threads = "") {
  const ir::Graph graph = ir::loadModelRaw(reference.string());
  const std::string &name = graph.inputs.at(0);
  const ir::Tensor input = normalTensor(graph.values.at(name).shape, 7);
  const ir::Tensor expected = runtime::runReference(graph, {{name, input}}).at(graph.outputs.at(0));
  REQUIRE(buildAbiDriver(dir / "abi_driver", compiler::linkCompiler(kAArch64)) == 0);
  const AbiDriverRun run = runAbiDriver(dir / "abi_driver", so, input, expected.f.size(),
                                        dir / "model", qemuAArch64(), threads);
  REQUIRE(run.status == 0);
  return relativeError(run.output, expected.f);
}

/// Compiles `model` for AArch64 with the neural steps (and any schedule steps) of `schedule`
/// and returns the error under qemu against the reference executor on the transformed model,
/// written by `nasc mutate MODEL --schedule SCHEDULE --weights slice` (the weights the compiled
/// library keeps).
inline double transformedQemuError(const std::filesystem::path &dir,
                                   const std::filesystem::path &model,
                                   const std::filesystem::path &schedule,
                                   const std::string &threads = "") {
  const std::filesystem::path so = compileForAArch64(dir, model, schedule);
  const std::filesystem::path reference = dir / "transformed.onnx";
  const CliResult mutated =
      runNasc("mutate " + model.string() + " --schedule " + schedule.string() +
              " --weights slice -o " + reference.string());
  INFO(mutated.output);
  REQUIRE(mutated.status == 0);
  return qemuReferenceError(dir, so, reference, threads);
}

} // namespace nasc::test
