#include "runtime/jit/JitProgram.h"

#include "ir/Error.h"
#include "runtime/jit/JitModule.h"

#include <llvm/Support/MemoryBuffer.h>

#include <cstdlib>

namespace nasc::runtime {

JitProgram::JitProgram(codegen::GeneratedCode code, const std::string &symbolPrefix) {
  codegen::Target target = code.target();
  module_ = JitModule::create(code.takeObjects(), target);
  run_ = reinterpret_cast<RunFn>(module_->lookup(symbolPrefix + "run"));
  workspaceBytes_ =
      *static_cast<const int64_t *>(module_->lookup(symbolPrefix + "workspace_bytes"));
  size_t bytes = (static_cast<size_t>(workspaceBytes_) + 63) / 64 * 64;
  workspace_ = bytes ? static_cast<float *>(std::aligned_alloc(64, bytes)) : nullptr;
}

JitProgram::~JitProgram() { std::free(workspace_); }

void JitProgram::run(const float *const *inputs, float *const *outputs) {
  run_(inputs, outputs, workspace_, threads_);
}

void JitProgram::setThreads(int threads) {
  if (threads < 1)
    throw Error("thread count must be at least 1, got " + std::to_string(threads));
  threads_ = threads;
}

} // namespace nasc::runtime
