// Running another program with a time limit, its output captured: how nasc search contains a
// candidate whose generated code crashes or hangs (docs/search.md, "Each candidate").
#pragma once

#include <string>
#include <vector>

namespace nasc::search {

/// How a child process ended.
struct ChildResult {
  enum class End { Exited, Signalled, TimedOut } end = End::Exited;
  int code = 0;       ///< The exit status (Exited) or the signal number (Signalled).
  std::string output; ///< Its stdout and stderr, interleaved as written.

  /// "exit status 1", "signal 11 (Segmentation fault)", "timed out after 60 s".
  std::string describe(double timeoutSeconds) const;
};

/// Runs `argv` (argv[0] looked up on PATH) with stdout and stderr captured; kills it (SIGKILL)
/// after `timeoutSeconds` of wall time. Throws nasc::Error naming argv[0] when it cannot be
/// started.
ChildResult runChild(const std::vector<std::string> &argv, double timeoutSeconds);

} // namespace nasc::search
