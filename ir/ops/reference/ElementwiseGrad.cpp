// Relu, Clip, Add, Sub, Mul, Div, Gemm, MatMul, Concat and the shape-only ops (Flatten, Reshape,
// Identity, Dropout) backward.
#include "ir/ops/reference/Broadcast.h"
#include "ir/ops/reference/Gradients.h"

#include <Eigen/Core>

#include <algorithm>

namespace nasc::ir::reference {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// dY (of shape `out`) summed to `in`, a shape that broadcasts to `out` (right-aligned).
ir::Tensor sumToShape(const ir::Tensor &dy, const ir::Shape &in) {
  const ir::Shape &out = dy.shape;
  const size_t rank = out.size(), offset = rank - in.size();
  std::vector<int64_t> strides(rank, 0);
  for (int64_t d = static_cast<int64_t>(in.size()) - 1, stride = 1; d >= 0; --d) {
    strides[offset + d] = in[d] == 1 ? 0 : stride;
    stride *= in[d];
  }
  ir::Tensor dx = ir::Tensor::zeros(in);
  std::vector<int64_t> index(rank, 0);
  int64_t target = 0;
  for (float value : dy.f) {
    dx.f[target] += value;
    for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
      target += strides[d];
      if (++index[d] < out[d])
        break;
      target -= strides[d] * out[d];
      index[d] = 0;
    }
  }
  return dx;
}

/// `grad` (of dY's shape) reduced to the shape `in` of the input it belongs to: summed over the
/// dimensions that input was broadcast along.
ir::Tensor reducedTo(ir::Tensor grad, const ir::Shape &in) {
  return grad.shape == in ? std::move(grad) : sumToShape(grad, in);
}

Eigen::Map<const Eigen::ArrayXf> asArray(const std::vector<float> &data) {
  return {data.data(), static_cast<Eigen::Index>(data.size())};
}

/// dL/dA and dL/dB of a broadcasting binary op Y = f(A, B): `da(dY, A, B)` and `db(dY, A, B)` map
/// Eigen arrays of Y's shape (A and B broadcast to it) to the element-wise gradients, which are
/// then reduced to A's and B's shapes.
template <typename DA, typename DB>
InputGradients binaryBackward(const BackwardArgs &args, DA da, DB db) {
  const ir::Tensor &a = floatInput(args.node, args.inputs, 0, "A");
  const ir::Tensor &b = floatInput(args.node, args.inputs, 1, "B");
  const ir::Shape &shape = args.dy.shape;
  const std::vector<float> left = broadcastTo(a, shape), right = broadcastTo(b, shape);
  const auto dy = asArray(args.dy.f);
  ir::Tensor ga = ir::Tensor::zeros(shape), gb = ir::Tensor::zeros(shape);
  Eigen::Map<Eigen::ArrayXf>(ga.f.data(), ga.size()) = da(dy, asArray(left), asArray(right));
  Eigen::Map<Eigen::ArrayXf>(gb.f.data(), gb.size()) = db(dy, asArray(left), asArray(right));
  return {reducedTo(std::move(ga), a.shape), reducedTo(std::move(gb), b.shape)};
}

ir::Tensor matrixTensor(const ir::Shape &shape, const RowMatrix &m) {
  return floatTensor(shape, std::vector<float>(m.data(), m.data() + m.size()));
}

} // namespace

InputGradients reluBackward(const BackwardArgs &args) {
  ir::Tensor dx = ir::Tensor::zeros(args.y.shape);
  for (size_t i = 0; i < dx.f.size(); ++i)
    dx.f[i] = args.y.f[i] > 0.0f ? args.dy.f[i] : 0.0f;
  return {std::move(dx)};
}

InputGradients clipBackward(const BackwardArgs &args) {
  const ir::Tensor &x = floatInput(args.node, args.inputs, 0, "input");
  const auto [low, high] = clipBounds(args.node, args.inputs);
  ir::Tensor dx = ir::Tensor::zeros(x.shape);
  for (size_t i = 0; i < dx.f.size(); ++i)
    dx.f[i] = x.f[i] > low && x.f[i] < high ? args.dy.f[i] : 0.0f;
  InputGradients grads(args.node.inputs.size());
  grads[0] = std::move(dx);
  return grads;
}

InputGradients addBackward(const BackwardArgs &args) {
  const ir::Tensor &a = floatInput(args.node, args.inputs, 0, "A");
  const ir::Tensor &b = floatInput(args.node, args.inputs, 1, "B");
  return {reducedTo(args.dy, a.shape), reducedTo(args.dy, b.shape)};
}

InputGradients subBackward(const BackwardArgs &args) {
  const ir::Tensor &a = floatInput(args.node, args.inputs, 0, "A");
  const ir::Tensor &b = floatInput(args.node, args.inputs, 1, "B");
  ir::Tensor minusDy = args.dy;
  for (float &v : minusDy.f)
    v = -v;
  return {reducedTo(args.dy, a.shape), reducedTo(std::move(minusDy), b.shape)};
}

InputGradients mulBackward(const BackwardArgs &args) {
  return binaryBackward(
      args, [](const auto &dy, const auto &, const auto &b) { return dy * b; },
      [](const auto &dy, const auto &a, const auto &) { return dy * a; });
}

InputGradients divBackward(const BackwardArgs &args) {
  return binaryBackward(
      args, [](const auto &dy, const auto &, const auto &b) { return dy / b; },
      [](const auto &dy, const auto &a, const auto &b) { return -dy * a / (b * b); });
}

InputGradients gemmBackward(const BackwardArgs &args) {
  const ir::Tensor &a = floatInput(args.node, args.inputs, 0, "A");
  const ir::Tensor &b = floatInput(args.node, args.inputs, 1, "B");
  Eigen::Map<const RowMatrix> bm(b.f.data(), b.shape[0], b.shape[1]);
  Eigen::Map<const RowMatrix> dy(args.dy.f.data(), args.dy.shape[0], args.dy.shape[1]);
  const float alpha = args.node.getFloat("alpha", 1.0f);
  const RowMatrix bPrime =
      args.node.getInt("transB", 0) != 0 ? RowMatrix(bm.transpose()) : RowMatrix(bm);
  RowMatrix da = alpha * (dy * bPrime.transpose());
  if (args.node.getInt("transA", 0) != 0)
    da = RowMatrix(da.transpose());
  InputGradients grads(args.node.inputs.size());
  grads[0] = floatTensor(a.shape, std::vector<float>(da.data(), da.data() + da.size()));
  return grads;
}

InputGradients matMulBackward(const BackwardArgs &args) {
  const ir::Tensor &a = floatInput(args.node, args.inputs, 0, "A");
  const ir::Tensor &b = floatInput(args.node, args.inputs, 1, "B");
  Eigen::Map<const RowMatrix> am(a.f.data(), a.shape[0], a.shape[1]);
  Eigen::Map<const RowMatrix> bm(b.f.data(), b.shape[0], b.shape[1]);
  Eigen::Map<const RowMatrix> dy(args.dy.f.data(), args.dy.shape[0], args.dy.shape[1]);
  return {matrixTensor(a.shape, dy * bm.transpose()), matrixTensor(b.shape, am.transpose() * dy)};
}

InputGradients concatBackward(const BackwardArgs &args) {
  const ir::Shape &shape = args.dy.shape;
  const auto axis = static_cast<size_t>(
      normalizeAxis(args.node, args.node.getInt("axis", 0), static_cast<int64_t>(shape.size())));
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  InputGradients grads;
  int64_t offset = 0;
  for (size_t k = 0; k < args.inputs.size(); ++k) {
    const ir::Tensor &x = floatInput(args.node, args.inputs, k, "inputs");
    const int64_t block = x.shape[axis] * inner;
    ir::Tensor dx = ir::Tensor::zeros(x.shape);
    for (int64_t o = 0; o < outer; ++o)
      std::copy_n(args.dy.f.begin() + o * shape[axis] * inner + offset, block,
                  dx.f.begin() + o * block);
    grads.push_back(std::move(dx));
    offset += block;
  }
  return grads;
}

InputGradients reshapeBackward(const BackwardArgs &args) {
  const ir::Tensor &x = floatInput(args.node, args.inputs, 0, "X");
  InputGradients grads(args.node.inputs.size());
  grads[0] = floatTensor(x.shape, args.dy.f);
  return grads;
}

namespace {

/// dL/dB of a Gemm Y = alpha A' B' + beta C: dB' = alpha A'^T dY, transposed back with transB.
ir::Tensor gemmBGradient(const BackwardArgs &args) {
  const ir::Tensor &a = floatInput(args.node, args.inputs, 0, "A");
  const ir::Tensor &b = floatInput(args.node, args.inputs, 1, "B");
  Eigen::Map<const RowMatrix> am(a.f.data(), a.shape[0], a.shape[1]);
  Eigen::Map<const RowMatrix> dy(args.dy.f.data(), args.dy.shape[0], args.dy.shape[1]);
  const RowMatrix aPrime =
      args.node.getInt("transA", 0) != 0 ? RowMatrix(am.transpose()) : RowMatrix(am);
  RowMatrix db = args.node.getFloat("alpha", 1.0f) * (aPrime.transpose() * dy);
  if (args.node.getInt("transB", 0) != 0)
    db = RowMatrix(db.transpose());
  return floatTensor(b.shape, std::vector<float>(db.data(), db.data() + db.size()));
}

/// dL/dC = beta Σ_rows dY of a Gemm whose C is a row bias (one value per output column, shape
/// (cols) or (1, cols)); nullopt for another C shape or no C.
std::optional<ir::Tensor> gemmRowBiasGradient(const BackwardArgs &args) {
  const ir::Tensor *c = optionalInput(args.inputs, 2);
  const int64_t rows = args.dy.shape[0], cols = args.dy.shape[1];
  if (!c || static_cast<int64_t>(c->f.size()) != cols || (c->shape.size() == 2 && c->shape[0] != 1))
    return std::nullopt;
  Eigen::Map<const RowMatrix> dy(args.dy.f.data(), rows, cols);
  const Eigen::RowVectorXf dc = args.node.getFloat("beta", 1.0f) * dy.colwise().sum();
  return floatTensor(c->shape, std::vector<float>(dc.data(), dc.data() + dc.size()));
}

} // namespace

InputGradients gemmWeightGradients(const BackwardArgs &args) {
  return {std::nullopt, gemmBGradient(args), gemmRowBiasGradient(args)};
}

} // namespace nasc::ir::reference
