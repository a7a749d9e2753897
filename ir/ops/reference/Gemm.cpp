// Gemm and MatMul forward with Eigen: Y = alpha * A' B' + beta * C, Y = A B.
#include "ir/ops/reference/Broadcast.h"
#include "ir/ops/reference/Ops.h"

#include <Eigen/Core>

namespace nasc::ir::reference {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

const ir::Tensor &matrixInput(const ir::Node &node, const OpInputs &inputs, size_t index,
                              const char *role) {
  const ir::Tensor &t = floatInput(node, inputs, index, role);
  if (t.shape.size() != 2)
    fail(node,
         std::string("input ") + role + " " + ir::shapeToString(t.shape) + " must be a matrix");
  return t;
}

RowMatrix operand(const ir::Tensor &t, bool transpose) {
  Eigen::Map<const RowMatrix> m(t.f.data(), t.shape[0], t.shape[1]);
  return transpose ? RowMatrix(m.transpose()) : RowMatrix(m);
}

/// C broadcast to (rows, cols) (unidirectional broadcasting, ONNX Broadcasting.md).
RowMatrix broadcastBias(const ir::Node &node, const ir::Tensor &c, int64_t rows, int64_t cols) {
  const ir::Shape target{rows, cols};
  if (c.shape.size() > 2 || broadcastShapes(c.shape, target) != target)
    fail(node, "input C " + ir::shapeToString(c.shape) + " does not broadcast to " +
                   ir::shapeToString(target));
  const std::vector<float> data = broadcastTo(c, target);
  return Eigen::Map<const RowMatrix>(data.data(), rows, cols);
}

/// The float32 tensor (rows, cols) holding `m`.
ir::Tensor matrixTensor(const RowMatrix &m) {
  return floatTensor({m.rows(), m.cols()}, std::vector<float>(m.data(), m.data() + m.size()));
}

/// Throws nasc::Error naming the node unless the columns of `a` match the rows of `b` (the
/// operands called `left` and `right` in the message).
void checkInnerDimensions(const ir::Node &node, const RowMatrix &a, const RowMatrix &b,
                          const char *left, const char *right) {
  if (a.cols() != b.rows())
    fail(node, std::string("inner dimensions of ") + left + " (" + std::to_string(a.cols()) +
                   ") and " + right + " (" + std::to_string(b.rows()) + ") differ");
}

} // namespace

OpOutputs gemm(const ir::Node &node, const OpInputs &inputs) {
  const RowMatrix a = operand(matrixInput(node, inputs, 0, "A"), node.getInt("transA", 0) != 0);
  const RowMatrix b = operand(matrixInput(node, inputs, 1, "B"), node.getInt("transB", 0) != 0);
  checkInnerDimensions(node, a, b, "A'", "B'");
  const float alpha = node.getFloat("alpha", 1.0f), beta = node.getFloat("beta", 1.0f);
  RowMatrix y = alpha * (a * b);
  if (optionalInput(inputs, 2))
    y += beta * broadcastBias(node, floatInput(node, inputs, 2, "C"), y.rows(), y.cols());
  return {matrixTensor(y)};
}

OpOutputs matMul(const ir::Node &node, const OpInputs &inputs) {
  const ir::Tensor &a = floatInput(node, inputs, 0, "A");
  const ir::Tensor &b = floatInput(node, inputs, 1, "B");
  for (const ir::Tensor *t : {&a, &b})
    if (t->shape.size() != 2)
      fail(node, "MatMul of rank-" + std::to_string(t->shape.size()) + " input " +
                     (t == &a ? "A " : "B ") + ir::shapeToString(t->shape) +
                     " is not supported (only 2-D)");
  const RowMatrix left = operand(a, false), right = operand(b, false);
  checkInnerDimensions(node, left, right, "A", "B");
  const RowMatrix y = left * right;
  return {matrixTensor(y)};
}

} // namespace nasc::ir::reference
