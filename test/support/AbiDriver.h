// Running a compiled model library from C, as an application would: test/compiler/abi_driver.c
// built by a C compiler (the host's or a cross compiler) and run on raw float32 files, directly
// or under an emulator (qemu-aarch64).
#pragma once

#include "ir/Tensor.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace nasc::test {

/// Writes `data` to `path` as raw float32 (the host's byte order, little-endian here and on
/// AArch64 Linux).
inline void writeRawFloats(const std::filesystem::path &path, const std::vector<float> &data) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char *>(data.data()),
             static_cast<std::streamsize>(data.size() * sizeof(float)));
}

/// `n` raw float32 values read from `path` (zeros past the end of a shorter file).
inline std::vector<float> readRawFloats(const std::filesystem::path &path, size_t n) {
  std::vector<float> data(n);
  std::ifstream(path, std::ios::binary)
      .read(reinterpret_cast<char *>(data.data()), static_cast<std::streamsize>(n * sizeof(float)));
  return data;
}

/// Builds test/compiler/abi_driver.c into `driver` with the C compiler `cc` ("cc", or a cross
/// compiler such as aarch64-linux-gnu-gcc); the exit status of the build command. Tests that
/// run in parallel (ctest -j) must use distinct paths, never rebuild a driver another one runs.
inline int buildAbiDriver(const std::filesystem::path &driver, const std::string &cc = "cc") {
  const std::string build =
      cc + " -O1 -o " + driver.string() + " " NASC_SOURCE_DIR "/test/compiler/abi_driver.c -ldl";
  return std::system(build.c_str());
}

/// One run of abi_driver.c: its exit status and the first output read back.
struct AbiDriverRun {
  int status = -1;
  std::vector<float> output;
};

/// Runs `driver` on the library `so` with `input` (the model's single input, written to
/// `<stem>.in`), reading `outputSize` floats of the first output from `<stem>.out`. `launcher`
/// prefixes the command (e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu"; empty: run natively);
/// `threads`, if not empty, is passed to nasc_model_set_num_threads. The driver's stdout goes
/// to `<stem>.log`.
inline AbiDriverRun runAbiDriver(const std::filesystem::path &driver,
                                 const std::filesystem::path &so, const ir::Tensor &input,
                                 size_t outputSize, const std::filesystem::path &stem,
                                 const std::string &launcher = "",
                                 const std::string &threads = "") {
  const std::string in = stem.string() + ".in", out = stem.string() + ".out";
  writeRawFloats(in, input.f);
  std::string run = (launcher.empty() ? "" : launcher + " ") + driver.string() + " " + so.string() +
                    " " + in + " " + out + " " + threads + " > " + stem.string() + ".log";
  AbiDriverRun result;
  result.status = std::system(run.c_str());
  if (result.status == 0)
    result.output = readRawFloats(out, outputSize);
  return result;
}

} // namespace nasc::test
