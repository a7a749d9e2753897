// Conv on random data against a direct 7-deep loop nest written from the ONNX Conv formula
// (O[n,k,oh,ow] = B[k] + Σ_{c,r,s} I[n, g*C/G + c, oh*sh + r*dh - pt, ow*sw + s*dw - pl] *
// W[k, c, r, s], g = k / (K/G)), accumulated in double.
#include "TestSupport.h"
#include "runtime/reference/Reference.h"

#include <catch2/catch.hpp>

namespace {

using nasc::ir::Shape;
using nasc::ir::Tensor;
using Ints = std::vector<int64_t>;

/// Attributes of a 2-d Conv with explicit pads {top, left, bottom, right}.
struct Conv2d {
  int64_t group = 1;
  Ints strides{1, 1}, dilations{1, 1}, pads{0, 0, 0, 0};
};

Tensor directConv(const Tensor &x, const Tensor &w, const Tensor *bias, const Conv2d &a) {
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const int64_t K = w.shape[0], R = w.shape[2], S = w.shape[3], Cg = C / a.group, Kg = K / a.group;
  const int64_t OH =
      (H + a.pads[0] + a.pads[2] - ((R - 1) * a.dilations[0] + 1)) / a.strides[0] + 1;
  const int64_t OW =
      (W + a.pads[1] + a.pads[3] - ((S - 1) * a.dilations[1] + 1)) / a.strides[1] + 1;
  Tensor y = Tensor::zeros({N, K, OH, OW});
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double sum = bias ? bias->f[k] : 0.0;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t r = 0; r < R; ++r)
              for (int64_t s = 0; s < S; ++s) {
                const int64_t ih = oh * a.strides[0] + r * a.dilations[0] - a.pads[0];
                const int64_t iw = ow * a.strides[1] + s * a.dilations[1] - a.pads[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                  continue;
                const int64_t channel = (k / Kg) * Cg + c;
                sum += double(x.f[((n * C + channel) * H + ih) * W + iw]) *
                       w.f[((k * Cg + c) * R + r) * S + s];
              }
          y.f[((n * K + k) * OH + oh) * OW + ow] = static_cast<float>(sum);
        }
  return y;
}

Tensor referenceConv(const Tensor &x, const Tensor &w, const Tensor *bias, const Conv2d &a) {
  std::vector<Tensor> inputs{x, w};
  if (bias)
    inputs.push_back(*bias);
  const nasc::ir::Graph graph = nasc::test::singleNodeGraph(
      "Conv",
      {{"group", a.group}, {"strides", a.strides}, {"dilations", a.dilations}, {"pads", a.pads}},
      inputs);
  std::map<std::string, Tensor> named;
  for (size_t k = 0; k < inputs.size(); ++k)
    named["in" + std::to_string(k)] = inputs[k];
  return nasc::runtime::runReference(graph, named).at("y");
}

void checkConv(const Shape &xShape, const Shape &wShape, bool withBias, const Conv2d &a) {
  const Tensor x = nasc::test::randomTensor(xShape, 1);
  const Tensor w = nasc::test::randomTensor(wShape, 2);
  const Tensor b = nasc::test::randomTensor({wShape[0]}, 3);
  const Tensor *bias = withBias ? &b : nullptr;
  nasc::test::checkClose(referenceConv(x, w, bias, a), directConv(x, w, bias, a), 1e-4, 1e-4);
}

} // namespace

TEST_CASE("Conv 3x3 with bias and batch 2 matches the direct loop nest") {
  checkConv({2, 5, 9, 8}, {7, 5, 3, 3}, true, {1, {1, 1}, {1, 1}, {1, 1, 1, 1}});
}

TEST_CASE("Conv with groups, strides, dilations and asymmetric pads matches the loop nest") {
  checkConv({2, 6, 11, 10}, {4, 3, 3, 2}, true, {2, {2, 1}, {2, 3}, {1, 0, 2, 1}});
}

TEST_CASE("Depthwise Conv with channel multiplier 2 matches the direct loop nest") {
  checkConv({1, 4, 7, 7}, {8, 1, 3, 3}, false, {4, {2, 2}, {1, 1}, {1, 1, 1, 1}});
}

TEST_CASE("Strided 1x1 Conv without pads matches the direct loop nest") {
  checkConv({3, 8, 6, 5}, {16, 8, 1, 1}, true, {1, {2, 2}, {1, 1}, {0, 0, 0, 0}});
}

TEST_CASE("ResNeXt-style 32-group Conv matches the direct loop nest") {
  checkConv({1, 64, 8, 8}, {64, 2, 3, 3}, false, {32, {1, 1}, {1, 1}, {1, 1, 1, 1}});
}
