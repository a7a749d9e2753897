// The loop-nest IR: a Kernel is a list of statements, each an affine loop nest writing one
// tensor element per iteration, e.g. the convolution
//   S1[n,k,oh,ow,c,r,s] : O[n,k,oh,ow] += I[n,c,oh*sh+r*dh-ph,ow*sw+s*dw-pw] * W[k,c,r,s].
// Iteration domains and accesses are affine so that polyhedral/ can hand them to isl.
#pragma once

#include "ir/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nasc::ir {

/// Affine function of a statement's iterators: Σ_i coeffs[i]·it_i + constant.
/// `coeffs.size()` equals the statement's depth.
struct AffineExpr {
  std::vector<int64_t> coeffs;
  int64_t constant = 0;

  /// coeff·it_i in a statement of `depth` iterators.
  static AffineExpr iter(size_t depth, size_t i, int64_t coeff = 1);
  /// The constant `c` in a statement of `depth` iterators.
  static AffineExpr constant_(size_t depth, int64_t c);
  AffineExpr operator+(const AffineExpr &other) const;
  AffineExpr operator-(const AffineExpr &other) const;
  AffineExpr operator+(int64_t c) const;
  AffineExpr operator*(int64_t c) const;
  /// "2*oh + r - 1" given the iterator names.
  std::string toString(const std::vector<std::string> &iterators) const;
};

/// An affine constraint on the iteration domain: `expr >= 0`, or `expr == 0` if `equality`.
struct Constraint {
  AffineExpr expr;
  bool equality = false;
};

/// Element access T[index_0, ..., index_{r-1}] of the kernel's tensor number `tensor`.
struct Access {
  int tensor = -1;
  std::vector<AffineExpr> index;
};

/// A scalar expression tree evaluated once per iteration of a statement.
struct Expr {
  enum class Op { Const, Load, Add, Sub, Mul, Div, Max, Min };
  Op op = Op::Const;
  float value = 0.0f;     ///< For Const.
  Access access;          ///< For Load.
  std::vector<Expr> args; ///< Two operands for the binary ops.

  static Expr constant(float v);
  static Expr load(Access a);
  static Expr binary(Op op, Expr lhs, Expr rhs);
  std::string toString(const std::vector<std::string> &iterators,
                       const std::vector<std::string> &tensorNames) const;
};

/// Calls `visit` on the Access of every Load in `e` (an Expr, const or not), in tree order
/// (left operand first).
template <typename ExprT, typename Visit> void forEachLoad(ExprT &e, const Visit &visit) {
  if (e.op == Expr::Op::Load)
    visit(e.access);
  for (auto &arg : e.args)
    forEachLoad(arg, visit);
}

/// The accesses of the Loads in `e`, in tree order.
std::vector<const Access *> loadsOf(const Expr &e);

/// How a statement combines its value with the element it writes:
/// Assign: W = v;  Add: W = W + v;  Max: W = max(W, v).  Add and Max read W too.
enum class Update { Assign, Add, Max };

/// One statement: a loop nest over `iterators` with 0 <= it_i < extents[i] and `constraints`,
/// executing `write (update)= value` at each point. Dimensions flagged in `reduction` are
/// reduction dimensions of an Add/Max update (they may be reordered).
struct Statement {
  std::string name; ///< Unique within the kernel; a C identifier ("S0", "S1", ...).
  std::vector<std::string> iterators;
  std::vector<int64_t> extents;
  std::vector<Constraint> constraints;
  std::vector<bool> reduction;
  Access write;
  Update update = Update::Assign;
  Expr value;

  size_t depth() const { return iterators.size(); }
  /// Whether iterator `d` is a reduction dimension (false for d outside 0 .. depth() - 1).
  bool reducesOver(int64_t d) const {
    return d >= 0 && static_cast<size_t>(d) < reduction.size() && reduction[static_cast<size_t>(d)];
  }
  /// Whether any iterator is a reduction dimension.
  bool hasReduction() const;
};

/// A tensor used by a kernel: row-major, float32, `shape` in elements. `name` is a C identifier.
struct TensorDecl {
  std::string name;
  Shape shape;
};

/// One fused loop nest: statements executed in order (each over its own domain) on `tensors`.
struct Kernel {
  std::string name; ///< C identifier, unique in its program.
  std::vector<TensorDecl> tensors;
  std::vector<Statement> statements;

  /// Human-readable listing (the `inspect --stage kernel` output).
  std::string toString() const;
  /// Floating-point operations of one execution: per statement, the points of its box
  /// (the product of extents, extra constraints ignored, so a padded convolution counts the
  /// conventional 2·N·K·OH·OW·C·R·S) times its binary ops (an Add/Max update counts one more).
  double flops() const;
};

/// What a kernel computes, without its names: `key` is equal for two kernels iff they differ
/// only in their name and their tensors' names and declaration order (statements, domains,
/// accesses, shapes and constants, bit for bit, are the same), so one schedule, AST and
/// generated function serve both. `tensorOrder[i]` is the index in `kernel.tensors` of the
/// i-th tensor in order of first use (statements in order; a statement's write, then its loads
/// left to right; unused tensors last): the two kernels' tensors correspond in that order.
struct KernelStructure {
  std::string key;
  std::vector<size_t> tensorOrder;
};

/// The KernelStructure of `kernel`.
KernelStructure kernelStructure(const Kernel &kernel);

/// Turns an arbitrary value name ("resnetv1/conv0:0") into a C identifier ("resnetv1_conv0_0").
std::string toIdentifier(const std::string &name);

} // namespace nasc::ir
