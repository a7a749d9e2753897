// Internal to ir/lower and the lowerings in ir/ops: the Program under construction and helpers
// shared by the per-op lowerings.
#pragma once

#include "ir/Graph.h"
#include "ir/Kernel.h"
#include "ir/Program.h"
#include "ir/lower/Fusion.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace nasc::ir::lower {

/// The Program being built from a Graph: one buffer per graph value (created on first use),
/// extra constant buffers, and kernel calls with unique names.
class LowerContext {
public:
  /// Creates the Input buffers (graph order) and the Output buffers (graph order), and plans
  /// which Add and Relu nodes fuse into a Conv's kernel (planConvFusion).
  explicit LowerContext(const Graph &graph);

  const Graph &graph() const { return graph_; }
  const Program &program() const { return program_; }
  /// Shape of graph value `value`: an initializer's own shape, else Graph::shapeOf (throws if
  /// unknown).
  const Shape &shape(const std::string &value) const;
  /// Buffer index holding graph value `value`: an initializer becomes a Constant buffer with its
  /// data, any other value not yet seen a Temp buffer. Throws if the value's shape is unknown or
  /// it is not float32.
  int buffer(const std::string &value);
  /// A new Constant buffer holding `data`, named `base` made unique among buffers and values.
  int addConstant(const std::string &base, Tensor data);
  /// Appends a call of `kernel` on buffers `args`; the kernel's name is made unique.
  void emit(Kernel kernel, std::vector<int> args, std::vector<std::string> nodes);
  /// "<source>: node 'x' (Op): message", the text of every lowering error about `node`
  /// ("<source>: node 'x' (Op)" for an empty message).
  std::string where(const Node &node, const std::string &message = "") const;
  /// The node whose kernel runs at place `k` of the node order: node k, the Conv of a fused chain
  /// ending at node k, or nullptr when node k is fused into a Conv's kernel that runs later.
  const Node *kernelNodeAt(size_t k) const;
  /// The fusion of Conv node `conv` (one of graph().nodes).
  const ConvFusion &fusionOf(const Node &conv) const;
  /// The finished program.
  Program take() { return std::move(program_); }

private:
  std::string uniqueBufferName(const std::string &base) const;

  const Graph &graph_;
  Program program_;
  std::map<std::string, int> valueBuffers_;
  std::set<std::string> kernelNames_;
  std::map<size_t, ConvFusion> fusionEndingAt_;
  std::set<size_t> fusedAway_;
};

/// A Kernel under construction whose tensors are bound to program buffers.
class KernelBuilder {
public:
  /// A kernel named toIdentifier(name) in `ctx`.
  KernelBuilder(LowerContext &ctx, const std::string &name);
  /// Kernel tensor index of graph value `value` (binding its buffer once).
  int tensor(const std::string &value);
  /// Kernel tensor index of program buffer `buffer` (bound once), named after the buffer.
  int bufferTensor(int buffer);
  /// Shape of kernel tensor `t`.
  const Shape &shape(int t) const { return kernel_.tensors.at(static_cast<size_t>(t)).shape; }
  /// Appends `st`, naming it "S<k>" in order; fills `reduction` with false if empty.
  void add(Statement st);
  /// Emits the kernel as a call implementing `nodes`.
  void emit(std::vector<std::string> nodes);

private:
  LowerContext &ctx_;
  Kernel kernel_;
  std::vector<int> args_;
};

} // namespace nasc::ir::lower
