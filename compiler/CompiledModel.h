// A model compiled in-process (JIT): run it on tensors from C++ (nasc run / bench, tests).
#pragma once

#include "compiler/Pipeline.h"
#include "ir/Tensor.h"
#include "runtime/jit/JitProgram.h"

#include <memory>
#include <string>
#include <vector>

namespace nasc::compiler {

/// A JIT-compiled model with its program (buffer names and shapes of inputs and outputs).
/// Checks that `inputs` match `program`'s inputs in count, shape and dtype (float32); throws
/// nasc::Error naming the first input that does not.
void checkInputs(const ir::Program &program, const std::vector<ir::Tensor> &inputs);

class CompiledModel {
public:
  /// Compiles an inference-ready graph for the host; parallel loops use `options.threads`
  /// threads until setThreads. Throws nasc::Error on failure.
  static std::unique_ptr<CompiledModel> compile(ir::Graph graph,
                                                const CompileOptions &options = {});
  /// Compiles a model already lowered by lowerToPolyhedral.
  static std::unique_ptr<CompiledModel> compile(PolyhedralModel model,
                                                const CompileOptions &options = {});

  /// Runs on `inputs` (graph input order, float32, shapes as the program's inputs) and returns
  /// the outputs in graph order. Throws nasc::Error naming the input whose shape is wrong.
  std::vector<ir::Tensor> run(const std::vector<ir::Tensor> &inputs);
  /// Runs on raw buffers (no checks); for timing.
  void runRaw(const float *const *inputs, float *const *outputs) { jit_->run(inputs, outputs); }
  /// Sets the thread count of parallel loops (default 1). Throws nasc::Error if < 1.
  void setThreads(int threads) { jit_->setThreads(threads); }
  int threads() const { return jit_->threads(); }

  const ir::Program &program() const { return program_; }
  const ir::Graph &graph() const { return graph_; }

private:
  CompiledModel(ir::Graph graph, ir::Program program, std::unique_ptr<runtime::JitProgram> jit)
      : graph_(std::move(graph)), program_(std::move(program)), jit_(std::move(jit)) {}
  ir::Graph graph_;
  ir::Program program_;
  std::unique_ptr<runtime::JitProgram> jit_;
};

} // namespace nasc::compiler
