// The op registry: every ONNX op nasc supports is defined once, as an OpDef, in the file of its
// family (ir/ops/*Ops.cpp). checkSupported, inferShapes, lowerGraph, the reference executor and
// training all dispatch through findOp; docs/architecture.md ("Adding an op") lists the files.
#pragma once

#include "ir/Graph.h"
#include "ir/ops/reference/OpSupport.h"

#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace nasc::ir {

namespace lower {
class LowerContext;
}

/// One node during shape inference: its inputs' recorded types and errors naming the node.
struct ShapeContext {
  const Graph &graph;
  const Node &node;

  /// Whether input `k` is given (present and not "").
  bool hasInput(size_t k) const;
  /// Type of input `k`; throws nasc::Error naming the node when it is omitted or has no shape.
  const ValueInfo &in(size_t k) const;
  /// Throws nasc::Error "node 'x' (Op): message".
  [[noreturn]] void fail(const std::string &message) const;
};

/// Output types of a node, in the order of Node::outputs.
using OutputTypes = std::vector<ValueInfo>;

/// Everything nasc knows about one ONNX op, written as designated initializers in its family
/// file. Optional parts are empty std::functions.
struct OpDef {
  /// "All inputs" for floatInputs.
  static constexpr size_t kAllInputs = std::numeric_limits<size_t>::max();

  /// ONNX op_type, e.g. "Conv".
  std::string name{};
  /// ONNX attributes nasc accepts; any other is rejected by checkSupported.
  std::set<std::string> attributes{};
  /// Those of them of ONNX type FLOAT or FLOATS: the JSON importer reads an integer given for one
  /// as a float.
  std::set<std::string> floatAttributes{};
  /// Outputs nasc produces; a node naming more is rejected.
  size_t maxOutputs = 1;
  /// What the outputs past maxOutputs are, for the rejection message ("" when nothing to add).
  std::string extraOutputs{};
  /// How many leading inputs must be float32 (0: any element type, kAllInputs: every input).
  size_t floatInputs = kAllInputs;
  /// Checks attribute values and input types known before shape inference; throws nasc::Error
  /// naming the node and attribute. Optional.
  std::function<void(const Graph &, const Node &)> check{};
  /// Output types from input types and attributes (ONNX operator spec); throws through
  /// ShapeContext::fail.
  std::function<OutputTypes(const ShapeContext &)> shape{};
  /// Appends the kernels computing the node to the Program under construction (ir/lower).
  /// Empty for ops removed before lowering (see removedBy).
  std::function<void(lower::LowerContext &, const Node &)> lower{};
  /// The graph pass that removes every node of this op before lowering, when `lower` is empty.
  std::string removedBy{};
  /// Reference forward kernel (ir/ops/reference, float32 NCHW, Eigen): outputs from inputs.
  std::function<reference::OpOutputs(const Node &, const reference::OpInputs &)> forward{};
  /// Forward kernel in training mode when it differs from `forward` (batch statistics). Optional.
  std::function<reference::OpOutputs(const Node &, const reference::OpInputs &)> trainingForward{};
  /// dL/d(inputs) from dL/d(output 0). Empty: the op is not supported in training mode.
  std::function<reference::InputGradients(const reference::BackwardArgs &)> backward{};
  /// dL/d(weight inputs) (Conv's W; Gemm's B and row-bias C; MatMul's A and B), indexed like
  /// Node::inputs; the caller keeps those of initializers. Optional.
  std::function<reference::InputGradients(const reference::BackwardArgs &)> weightGradients{};

  /// The inputs that hold trainable parameters when they are initializers (PyTorch's
  /// `parameters()`: Conv's W and B, Gemm's B and C, BatchNormalization's scale and B, not its
  /// running statistics); nasc::nas::modelCost counts their elements.
  std::vector<size_t> parameterInputs{};
  /// FLOP of one run (2 per multiply-accumulate, the convention of thop and the NAS papers) from
  /// the node's static shapes; empty for ops counted as free (element-wise, pools, BN, which
  /// folds into the Conv). Formulas in compiler/nas/ModelCost.h.
  std::function<double(const Graph &, const Node &)> flops{};

  // What the graph passes, the neural transformations and the proxies reason with (false by
  // default). test/ir/OpFactsTest.cpp lists, per fact, the ops that have it.

  /// Output 0 applies one function to each element of input 0 and keeps its shape (any other
  /// input is a parameter): a change of the channels or of the resolution of the input passes
  /// through it unchanged (Relu, Clip, Identity, Dropout).
  bool unaryElementwise = false;
  /// Channel c of output 0 (NCHW) depends on channel c of input 0 only, through no per-channel
  /// parameter: keeping some channels of the input keeps the same channels of the output (the
  /// unary element-wise ops and the pools).
  bool perChannel = false;
  /// At inference output 0 is input 0; ir::removeNoOps bypasses the node (Identity, Dropout).
  bool noOp = false;
  /// On non-negative inputs, positively homogeneous in input 0 (f(a·x) = a·f(x) for a > 0) with
  /// max f(x) <= max x: synflow's scaled copy passes input 0's bound through
  /// (compiler/nas/SynflowScaling.h).
  bool homogeneous = false;
};

/// Whether `opType` is registered and has the fact `fact` of OpDef (e.g. &OpDef::perChannel).
bool opHas(const std::string &opType, bool OpDef::*fact);

/// Every registered op, sorted by name.
const std::vector<OpDef> &registeredOps();

/// The definition of op `opType`, or nullptr when nasc does not support it.
const OpDef *findOp(const std::string &opType);

/// Type of an initializer or of a value with a recorded shape; nullopt if not known yet.
std::optional<ValueInfo> knownType(const Graph &graph, const std::string &value);

/// Throws nasc::Error naming `node` and attribute `attr` with `why` when `attr` is set and
/// `supported` is false.
void requireAttribute(const Node &node, const std::string &attr, bool supported,
                      const std::string &why);

/// Axis `axis` of a tensor of rank `rank` normalised to [0, rank); accepted in [-rank, upper].
/// Throws through `ctx` (attribute 'axis') when out of range.
int64_t normalizedAxis(const ShapeContext &ctx, int64_t axis, int64_t rank, int64_t upper);

/// Throws nasc::Error naming `node` when its auto_pad is not one of ONNX's (NOTSET, VALID,
/// SAME_UPPER, SAME_LOWER); the check of Conv and the pools.
void checkAutoPad(const Graph &graph, const Node &node);

/// Shape rule of element-wise ops: output 0 has input 0's type.
OutputTypes sameTypeAsInput(const ShapeContext &ctx);

} // namespace nasc::ir
