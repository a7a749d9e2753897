// Every backward kernel of the reference executor against central finite differences of its forward
// kernel, on tiny shapes: L = Σ r·Y with fixed random r, so dL/dY = r.
#include "ir/ops/reference/Gradients.h"
#include "ir/ops/reference/Ops.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace {

using namespace nasc;
using namespace nasc::ir::reference;
using Forward = OpOutputs (*)(const ir::Node &, const OpInputs &);
using Backward = InputGradients (*)(const BackwardArgs &);

/// `count` distinct values spaced 0.05 apart around 0, in a seeded random order: no two are within
/// the finite-difference step of each other or of 0 (no ReLU / max-pool kink is crossed).
std::vector<float> distinctValues(size_t count, unsigned seed) {
  std::vector<float> values(count);
  std::iota(values.begin(), values.end(), 0.0f);
  std::shuffle(values.begin(), values.end(), std::mt19937(seed));
  for (float &v : values)
    v = (v - static_cast<float>(count) / 2 + 0.5f) * 0.05f;
  return values;
}

ir::Tensor tensorOf(const ir::Shape &shape, unsigned seed) {
  return floatTensor(shape, distinctValues(static_cast<size_t>(ir::numElements(shape)), seed));
}

OpInputs pointers(const std::vector<ir::Tensor> &inputs) {
  OpInputs ptrs;
  for (const ir::Tensor &t : inputs)
    ptrs.push_back(&t);
  return ptrs;
}

double weightedSum(Forward forward, const ir::Node &node, const std::vector<ir::Tensor> &inputs,
                   const std::vector<float> &r) {
  const ir::Tensor y = forward(node, pointers(inputs))[0];
  double sum = 0;
  for (size_t i = 0; i < r.size(); ++i)
    sum += static_cast<double>(r[i]) * y.f[i];
  return sum;
}

/// Checks dL/d(input `wrt`) of `backward` against central differences with step 1e-2 (float32
/// forward: |fd - analytic| <= 2e-3 + 1e-2 |analytic|).
void checkGradient(Forward forward, Backward backward, const ir::Node &node,
                   std::vector<ir::Tensor> inputs, size_t wrt) {
  const ir::Tensor y = forward(node, pointers(inputs))[0];
  std::vector<float> r = distinctValues(static_cast<size_t>(y.size()), 7);
  for (float &v : r)
    v *= 10.0f / static_cast<float>(y.size());
  const ir::Tensor dy = floatTensor(y.shape, r);
  const OpInputs ptrs = pointers(inputs);
  const InputGradients grads = backward({node, ptrs, y, dy});
  REQUIRE(grads.size() > wrt);
  REQUIRE(grads[wrt].has_value());
  REQUIRE(grads[wrt]->shape == inputs[wrt].shape);
  const float h = 1e-2f;
  double worst = 0;
  for (size_t i = 0; i < inputs[wrt].f.size(); ++i) {
    const float saved = inputs[wrt].f[i];
    inputs[wrt].f[i] = saved + h;
    const double plus = weightedSum(forward, node, inputs, r);
    inputs[wrt].f[i] = saved - h;
    const double minus = weightedSum(forward, node, inputs, r);
    inputs[wrt].f[i] = saved;
    const double fd = (plus - minus) / (2.0 * h), analytic = grads[wrt]->f[i];
    worst = std::max(worst, std::fabs(fd - analytic) / (2e-3 + 1e-2 * std::fabs(analytic)));
  }
  INFO(node.describe() << " input " << wrt << ": worst error / tolerance " << worst);
  CHECK(worst <= 1.0);
}

ir::Node makeNode(const std::string &op, std::map<std::string, ir::Attribute> attributes,
                  size_t inputs) {
  ir::Node node{op + "_0", op, {}, {"y"}, std::move(attributes)};
  for (size_t k = 0; k < inputs; ++k)
    node.inputs.push_back("in" + std::to_string(k));
  return node;
}

using Ints = std::vector<int64_t>;

} // namespace

TEST_CASE("Conv input gradient matches finite differences (group, strides, "
          "pads, dilations)",
          "[nas][gradient]") {
  const ir::Node grouped = makeNode("Conv",
                                    {{"group", int64_t{2}},
                                     {"strides", Ints{2, 1}},
                                     {"pads", Ints{1, 0, 1, 1}},
                                     {"dilations", Ints{1, 2}}},
                                    3);
  checkGradient(conv, convBackward, grouped,
                {tensorOf({2, 4, 5, 6}, 1), tensorOf({6, 2, 3, 2}, 2), tensorOf({6}, 3)}, 0);
  const ir::Node projection = makeNode("Conv", {{"strides", Ints{2, 2}}}, 2);
  checkGradient(conv, convBackward, projection,
                {tensorOf({2, 3, 5, 5}, 4), tensorOf({4, 3, 1, 1}, 5)}, 0);
  const ir::Node depthwise =
      makeNode("Conv", {{"group", int64_t{3}}, {"pads", Ints{1, 1, 1, 1}}}, 2);
  checkGradient(conv, convBackward, depthwise,
                {tensorOf({1, 3, 4, 4}, 6), tensorOf({6, 1, 3, 3}, 7)}, 0);
}

TEST_CASE("Training-mode BatchNormalization gradient goes through the batch "
          "statistics",
          "[nas][gradient]") {
  const ir::Node node = makeNode("BatchNormalization", {}, 5);
  std::vector<ir::Tensor> inputs{tensorOf({3, 2, 2, 3}, 8), floatTensor({2}, {1.5f, -0.7f}),
                                 floatTensor({2}, {0.2f, 0.3f}), floatTensor({2}, {9.0f, 9.0f}),
                                 floatTensor({2}, {4.0f, 4.0f})};
  for (float &v : inputs[0].f)
    v *= 20.0f;
  checkGradient(batchNormalizationTraining, batchNormalizationTrainingBackward, node, inputs, 0);
}

TEST_CASE("Relu, Add (broadcast) and GlobalAveragePool gradients match finite "
          "differences",
          "[nas][gradient]") {
  checkGradient(relu, reluBackward, makeNode("Relu", {}, 1), {tensorOf({2, 3, 2, 2}, 9)}, 0);
  const std::vector<ir::Tensor> addInputs{tensorOf({2, 3, 2, 2}, 10), tensorOf({3, 1, 1}, 11)};
  checkGradient(add, addBackward, makeNode("Add", {}, 2), addInputs, 0);
  checkGradient(add, addBackward, makeNode("Add", {}, 2), addInputs, 1);
  checkGradient(globalAveragePool, globalAveragePoolBackward, makeNode("GlobalAveragePool", {}, 1),
                {tensorOf({2, 3, 3, 2}, 12)}, 0);
}

TEST_CASE("MaxPool and AveragePool gradients match finite differences", "[nas][gradient]") {
  const ir::Node stem = makeNode(
      "MaxPool",
      {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}, 1);
  checkGradient(maxPool, maxPoolBackward, stem, {tensorOf({1, 2, 5, 5}, 13)}, 0);
  for (int64_t includePad : {0, 1}) {
    const ir::Node avg = makeNode("AveragePool",
                                  {{"kernel_shape", Ints{2, 3}},
                                   {"strides", Ints{2, 2}},
                                   {"pads", Ints{1, 1, 1, 1}},
                                   {"count_include_pad", includePad}},
                                  1);
    checkGradient(averagePool, averagePoolBackward, avg, {tensorOf({2, 2, 5, 4}, 14)}, 0);
  }
}

TEST_CASE("Concat gradient splits dY between its inputs", "[nas][gradient]") {
  const std::vector<ir::Tensor> inputs{tensorOf({2, 1, 2, 3}, 22), tensorOf({2, 3, 2, 3}, 23),
                                       tensorOf({2, 2, 2, 3}, 24)};
  for (size_t k = 0; k < inputs.size(); ++k)
    checkGradient(concat, concatBackward, makeNode("Concat", {{"axis", int64_t{1}}}, 3), inputs, k);
  const std::vector<ir::Tensor> last{tensorOf({2, 2, 1}, 25), tensorOf({2, 2, 3}, 26)};
  checkGradient(concat, concatBackward, makeNode("Concat", {{"axis", int64_t{-1}}}, 2), last, 0);
  checkGradient(concat, concatBackward, makeNode("Concat", {{"axis", int64_t{-1}}}, 2), last, 1);
}

TEST_CASE("Gemm, Flatten and Reshape gradients match finite differences", "[nas][gradient]") {
  const ir::Node gemmNode =
      makeNode("Gemm", {{"transA", int64_t{1}}, {"transB", int64_t{1}}, {"alpha", 0.5f}}, 3);
  checkGradient(gemm, gemmBackward, gemmNode,
                {tensorOf({4, 3}, 15), tensorOf({5, 4}, 16), tensorOf({5}, 17)}, 0);
  checkGradient(gemm, gemmBackward, makeNode("Gemm", {}, 2),
                {tensorOf({3, 4}, 18), tensorOf({4, 2}, 19)}, 0);
  checkGradient(flatten, reshapeBackward, makeNode("Flatten", {}, 1), {tensorOf({2, 3, 2, 1}, 20)},
                0);
  ir::Tensor shape;
  shape.dtype = ir::DType::Int64;
  shape.shape = {2};
  shape.i = {3, -1};
  checkGradient(reshape, reshapeBackward, makeNode("Reshape", {}, 2),
                {tensorOf({2, 3, 2}, 21), shape}, 0);
}

TEST_CASE("Slice gradient scatters dY into zeros at the sliced positions", "[nas][gradient]") {
  auto ints = [](const Ints &values) {
    return ir::Tensor{ir::DType::Int64, {static_cast<int64_t>(values.size())}, {}, values};
  };
  checkGradient(
      slice, sliceBackward, makeNode("Slice", {}, 5),
      {tensorOf({2, 3, 5, 4}, 27), ints({1, -1}), ints({5, -100}), ints({2, -1}), ints({2, -2})},
      0);
  checkGradient(slice, sliceBackward, makeNode("Slice", {}, 3),
                {tensorOf({2, 4, 3}, 28), ints({-3}), ints({3})}, 0);
}

TEST_CASE("Resize (nearest) gradient sums dY into each source element", "[nas][gradient]") {
  const ir::Tensor noRoi = floatTensor({0}, {});
  const ir::Node upsample = makeNode("Resize",
                                     {{"coordinate_transformation_mode", std::string("asymmetric")},
                                      {"nearest_mode", std::string("floor")}},
                                     3);
  checkGradient(resize, resizeBackward, upsample,
                {tensorOf({2, 2, 3, 2}, 29), noRoi, floatTensor({4}, {1, 1, 2, 3})}, 0);
  ir::Tensor sizes{ir::DType::Int64, {4}, {}, {1, 2, 3, 7}};
  checkGradient(resize, resizeBackward, makeNode("Resize", {}, 4),
                {tensorOf({1, 2, 5, 3}, 30), noRoi, floatTensor({0}, {}), sizes}, 0);
}

TEST_CASE("Clip gradient passes dY strictly inside the bounds", "[nas][gradient]") {
  // Values are odd multiples of 0.025: at least 0.025 from the bounds, beyond the step 1e-2.
  const std::vector<ir::Tensor> clip11{tensorOf({2, 3, 2, 4}, 31), floatTensor({}, {-0.5f}),
                                       floatTensor({}, {0.6f})};
  checkGradient(clip, clipBackward, makeNode("Clip", {}, 3), clip11, 0);
  checkGradient(clip, clipBackward, makeNode("Clip", {{"min", -0.3f}, {"max", 0.4f}}, 1),
                {tensorOf({2, 3, 2, 4}, 32)}, 0);
  checkGradient(clip, clipBackward, makeNode("Clip", {{"min", -0.3f}}, 1),
                {tensorOf({2, 3, 2, 4}, 33)}, 0);

  // At a bound exactly: no gradient (PyTorch's relu6 / hardtanh), and none for min and max.
  const std::vector<ir::Tensor> relu6{floatTensor({5}, {-1, 0, 3, 6, 7}), floatTensor({}, {0}),
                                      floatTensor({}, {6})};
  const OpInputs ptrs = pointers(relu6);
  const ir::Node node = makeNode("Clip", {}, 3);
  const ir::Tensor y = clip(node, ptrs)[0];
  const ir::Tensor dy = floatTensor({5}, {1, 1, 1, 1, 1});
  const InputGradients grads = clipBackward({node, ptrs, y, dy});
  REQUIRE(grads.size() == 3);
  REQUIRE(grads[0].has_value());
  CHECK(grads[0]->f == std::vector<float>{0, 0, 1, 0, 0});
  CHECK_FALSE(grads[1].has_value());
  CHECK_FALSE(grads[2].has_value());
}

TEST_CASE("Sub, Mul and Div gradients (broadcast both ways) match finite differences",
          "[nas][gradient]") {
  // Y is 2x3x4 in both cases: B broadcast along dims 0 and 2, then A along 0 and 2 and B along 1.
  auto awayFromZero = [](ir::Tensor t) {
    for (float &v : t.f)
      v += 1.0f;
    return t;
  };
  const std::vector<std::pair<ir::Shape, ir::Shape>> shapes{{{2, 3, 4}, {3, 1}},
                                                            {{3, 1}, {2, 1, 4}}};
  unsigned seed = 34;
  for (const auto &[aShape, bShape] : shapes) {
    const std::vector<ir::Tensor> inputs{tensorOf(aShape, seed), tensorOf(bShape, seed + 1)};
    const std::vector<ir::Tensor> divisor{inputs[0], awayFromZero(inputs[1])};
    seed += 2;
    for (size_t k = 0; k < 2; ++k) {
      checkGradient(sub, subBackward, makeNode("Sub", {}, 2), inputs, k);
      checkGradient(mul, mulBackward, makeNode("Mul", {}, 2), inputs, k);
      checkGradient(div, divBackward, makeNode("Div", {}, 2), divisor, k);
    }
  }
}

TEST_CASE("MatMul gradients w.r.t. both operands match finite differences", "[nas][gradient]") {
  const std::vector<ir::Tensor> inputs{tensorOf({3, 4}, 38), tensorOf({4, 2}, 39)};
  checkGradient(matMul, matMulBackward, makeNode("MatMul", {}, 2), inputs, 0);
  checkGradient(matMul, matMulBackward, makeNode("MatMul", {}, 2), inputs, 1);
}

TEST_CASE("GlobalMaxPool gradient goes to the first maximum of each plane", "[nas][gradient]") {
  checkGradient(globalMaxPool, globalMaxPoolBackward, makeNode("GlobalMaxPool", {}, 1),
                {tensorOf({2, 3, 3, 2}, 40)}, 0);
  // Ties: PyTorch's adaptive_max_pool2d / max_pool2d (CPU) route dY to the first maximum in
  // row-major order; here plane 0 has 5 at (0,1) and (1,0), plane 1 is constant.
  const std::vector<ir::Tensor> tied{floatTensor({1, 2, 2, 2}, {1, 5, 5, 2, 3, 3, 3, 3})};
  const OpInputs ptrs = pointers(tied);
  const ir::Node node = makeNode("GlobalMaxPool", {}, 1);
  const ir::Tensor y = globalMaxPool(node, ptrs)[0];
  const InputGradients grads =
      globalMaxPoolBackward({node, ptrs, y, floatTensor({1, 2, 1, 1}, {0.5f, -2.0f})});
  REQUIRE(grads.size() == 1);
  REQUIRE(grads[0].has_value());
  CHECK(grads[0]->f == std::vector<float>{0, 0.5f, 0, 0, -2.0f, 0, 0, 0});
}
