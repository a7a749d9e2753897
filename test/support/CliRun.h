// Running the `nasc` binary from a test, as a user would: exit status and merged output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace nasc::test {

/// Exit status (-1 if the process did not exit normally) and stdout + stderr of one run.
struct CliResult {
  int status;
  std::string output;
};

/// Runs `<build>/tools/nasc ARGS` (stderr merged into stdout).
inline CliResult runNasc(const std::string &args) {
  std::string cmd = std::string(NASC_BINARY_DIR) + "/tools/nasc " + args + " 2>&1";
  FILE *pipe = popen(cmd.c_str(), "r");
  if (!pipe)
    return {-1, "popen failed: " + cmd};
  std::string output;
  std::array<char, 4096> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe))
    output.append(buffer.data(), n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

} // namespace nasc::test
