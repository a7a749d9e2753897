// A lowered model: buffers (inputs, outputs, constants, temporaries) and kernel calls in order.
#pragma once

#include "ir/Kernel.h"
#include "ir/Tensor.h"

#include <string>
#include <vector>

namespace nasc::ir {

/// Role of a buffer in a program.
enum class BufferKind {
  Input,    ///< A graph input, supplied by the caller.
  Output,   ///< A graph output, written into the caller's memory.
  Constant, ///< Weights and other compile-time data, embedded in the generated code.
  Temp,     ///< An intermediate activation, placed in the workspace.
};

/// A float32 row-major buffer. `data` holds the values of a Constant buffer.
struct Buffer {
  std::string name; ///< The graph value name it holds.
  Shape shape;
  BufferKind kind = BufferKind::Temp;
  Tensor data;
};

/// One kernel execution: kernel tensor i is bound to program buffer `args[i]`.
struct KernelCall {
  Kernel kernel;
  std::vector<int> args;
  std::vector<std::string> nodes; ///< Names of the graph nodes this kernel implements.
};

/// A whole lowered model. `inputs` / `outputs` list buffer indices in graph order.
struct Program {
  std::string name;
  std::vector<Buffer> buffers;
  std::vector<KernelCall> calls;
  std::vector<int> inputs;
  std::vector<int> outputs;

  /// Sum of the kernels' FLOP counts for one run.
  double flops() const;
};

} // namespace nasc::ir
