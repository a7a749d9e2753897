// A Program compiled in-process: its JIT-compiled entry point and its workspace.
#pragma once

#include "codegen/GeneratedCode.h"

#include <cstdint>
#include <memory>
#include <string>

namespace nasc::runtime {

class JitModule;

/// Runs a program's generated `<prefix>run` in this process with a workspace it owns.
class JitProgram {
public:
  /// JIT-compiles `code` (emitted with `symbolPrefix`) for the host and allocates the
  /// workspace (`<prefix>workspace_bytes`, 64-byte aligned). Throws nasc::Error if LLVM fails.
  JitProgram(codegen::GeneratedCode code, const std::string &symbolPrefix);
  ~JitProgram();

  /// Runs the program with threads() threads: `inputs[i]` / `outputs[i]` are dense row-major
  /// float32 buffers of the program's i-th input / output buffer shape. Not reentrant (the
  /// workspace is shared).
  void run(const float *const *inputs, float *const *outputs);
  /// Sets the thread count of the parallel loops (default 1: nothing is spawned).
  /// Throws nasc::Error if `threads` < 1.
  void setThreads(int threads);
  int threads() const { return threads_; }
  /// Workspace size in bytes.
  int64_t workspaceBytes() const { return workspaceBytes_; }

private:
  using RunFn = void (*)(const float *const *, float *const *, float *, int32_t);
  std::unique_ptr<JitModule> module_;
  RunFn run_ = nullptr;
  int64_t workspaceBytes_ = 0;
  float *workspace_ = nullptr;
  int threads_ = 1;
};

} // namespace nasc::runtime
