// Gemm forward with Eigen: Y = alpha * A' B' + beta * C.
#include "runtime/reference/Broadcast.h"
#include "runtime/reference/Ops.h"

#include <Eigen/Core>

namespace nasc::runtime::reference {

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

} // namespace

OpOutputs gemm(const ir::Node &node, const OpInputs &inputs) {
  const RowMatrix a = operand(matrixInput(node, inputs, 0, "A"), node.getInt("transA", 0) != 0);
  const RowMatrix b = operand(matrixInput(node, inputs, 1, "B"), node.getInt("transB", 0) != 0);
  if (a.cols() != b.rows())
    fail(node, "inner dimensions of A' (" + std::to_string(a.cols()) + ") and B' (" +
                   std::to_string(b.rows()) + ") differ");
  const float alpha = node.getFloat("alpha", 1.0f), beta = node.getFloat("beta", 1.0f);
  RowMatrix y = alpha * (a * b);
  if (optionalInput(inputs, 2))
    y += beta * broadcastBias(node, floatInput(node, inputs, 2, "C"), y.rows(), y.cols());
  return {floatTensor({y.rows(), y.cols()}, std::vector<float>(y.data(), y.data() + y.size()))};
}

} // namespace nasc::runtime::reference
