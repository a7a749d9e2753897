// The facts an OpDef states about its op (unaryElementwise, perChannel, noOp, homogeneous) hold
// for its reference forward: each marked op is run on sample inputs and the property checked
// numerically (permuting the elements, changing other channels, scaling the input). The sets of
// marked ops are the ones the ONNX operator spec gives.
#include "ir/ops/OpDef.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>

using nasc::ir::DType;
using nasc::ir::Node;
using nasc::ir::OpDef;
using nasc::ir::Tensor;

namespace {

const nasc::ir::Shape kShape{1, 3, 4, 4};

Tensor int64Tensor(std::vector<int64_t> values) {
  Tensor t;
  t.dtype = DType::Int64;
  t.shape = {static_cast<int64_t>(values.size())};
  t.i = std::move(values);
  return t;
}

/// One node of an op with its inputs past X (X of kShape comes first; nullopt: omitted).
struct Sample {
  Node node;
  std::vector<std::optional<Tensor>> extraInputs;
};

/// A sample node per op that claims a fact; the attributes are the ONNX spec's.
std::map<std::string, Sample> samples() {
  auto node = [](const std::string &op, std::vector<std::string> inputs = {"x"}) {
    return Node{"n", op, std::move(inputs), {"y"}, {}};
  };
  std::map<std::string, Sample> s;
  for (const char *op : {"Relu", "Identity", "Dropout", "GlobalAveragePool", "GlobalMaxPool"})
    s[op] = {node(op), {}};
  s["Clip"] = {node("Clip"), {}};
  s["Clip"].node.attributes = {{"min", -0.25F}, {"max", 0.5F}};
  for (const char *op : {"MaxPool", "AveragePool"}) {
    s[op] = {node(op), {}};
    s[op].node.attributes = {{"kernel_shape", std::vector<int64_t>{2, 2}}};
  }
  s["Flatten"] = {node("Flatten"), {}};
  s["Reshape"] = {node("Reshape", {"x", "shape"}), {int64Tensor({1, -1})}};
  s["Squeeze"] = {node("Squeeze"), {}};
  s["Squeeze"].node.attributes = {{"axes", std::vector<int64_t>{0}}};
  s["Unsqueeze"] = {node("Unsqueeze"), {}};
  s["Unsqueeze"].node.attributes = {{"axes", std::vector<int64_t>{0}}};
  s["Slice"] = {node("Slice", {"x", "starts", "ends", "axes"}),
                {int64Tensor({1}), int64Tensor({3}), int64Tensor({2})}};
  s["Resize"] = {node("Resize", {"x", "", "scales"}),
                 {std::nullopt, nasc::ir::reference::floatTensor({4}, {1, 1, 2, 2})}};
  return s;
}

Tensor forward(const Sample &sample, const Tensor &x) {
  nasc::ir::reference::OpInputs inputs{&x};
  for (const std::optional<Tensor> &t : sample.extraInputs)
    inputs.push_back(t ? &*t : nullptr);
  return nasc::ir::findOp(sample.node.op_type)->forward(sample.node, inputs).at(0);
}

Tensor randomInput(unsigned seed, float lo) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, 1.0F);
  std::vector<float> data(48);
  for (float &v : data)
    v = u(rng);
  return nasc::ir::reference::floatTensor(kShape, std::move(data));
}

/// The ops for which `fact` is set, by name.
std::set<std::string> opsWith(bool OpDef::*fact) {
  std::set<std::string> names;
  for (const OpDef &op : nasc::ir::registeredOps())
    if (op.*fact)
      names.insert(op.name);
  return names;
}

/// Runs `check` on the sample of every op with `fact`; fails for a marked op without a sample.
template <class Check> void forEachMarked(bool OpDef::*fact, Check check) {
  const std::map<std::string, Sample> all = samples();
  for (const std::string &op : opsWith(fact)) {
    INFO(op);
    REQUIRE(all.count(op));
    check(all.at(op));
  }
}

} // namespace

TEST_CASE("the ops marked with each fact are the ones the ONNX spec describes so") {
  CHECK(opsWith(&OpDef::unaryElementwise) ==
        std::set<std::string>{"Clip", "Dropout", "Identity", "Relu"});
  CHECK(opsWith(&OpDef::perChannel) == std::set<std::string>{"AveragePool", "Clip", "Dropout",
                                                             "GlobalAveragePool", "GlobalMaxPool",
                                                             "Identity", "MaxPool", "Relu"});
  CHECK(opsWith(&OpDef::noOp) == std::set<std::string>{"Dropout", "Identity"});
  CHECK(opsWith(&OpDef::homogeneous) ==
        std::set<std::string>{"AveragePool", "Dropout", "Flatten", "GlobalAveragePool",
                              "GlobalMaxPool", "Identity", "MaxPool", "Relu", "Reshape", "Resize",
                              "Slice", "Squeeze", "Unsqueeze"});
  CHECK(nasc::ir::opHas("Relu", &OpDef::homogeneous));
  CHECK_FALSE(nasc::ir::opHas("Clip", &OpDef::homogeneous));
  CHECK_FALSE(nasc::ir::opHas("Tanh", &OpDef::unaryElementwise));
}

TEST_CASE("a unary element-wise op keeps the shape and commutes with permuting the elements") {
  forEachMarked(&OpDef::unaryElementwise, [](const Sample &sample) {
    const Tensor x = randomInput(1, -1.0F);
    std::vector<size_t> perm(x.f.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), std::mt19937(7));
    Tensor permuted = x;
    for (size_t k = 0; k < perm.size(); ++k)
      permuted.f[k] = x.f[perm[k]];
    const Tensor y = forward(sample, x), yPermuted = forward(sample, permuted);
    REQUIRE(y.shape == x.shape);
    for (size_t k = 0; k < perm.size(); ++k)
      CHECK(yPermuted.f[k] == y.f[perm[k]]);
  });
}

TEST_CASE("a per-channel op's output channel c does not change when other channels do") {
  forEachMarked(&OpDef::perChannel, [](const Sample &sample) {
    const Tensor x = randomInput(2, -1.0F), other = randomInput(3, -1.0F);
    const Tensor y = forward(sample, x);
    const size_t inPlane = 16, outPlane = y.f.size() / 3;
    for (size_t c = 0; c < 3; ++c) {
      Tensor changed = other;
      std::copy_n(x.f.begin() + c * inPlane, inPlane, changed.f.begin() + c * inPlane);
      const Tensor yChanged = forward(sample, changed);
      for (size_t k = c * outPlane; k < (c + 1) * outPlane; ++k)
        CHECK(yChanged.f[k] == y.f[k]);
    }
  });
}

TEST_CASE("a no-op's output is its input") {
  forEachMarked(&OpDef::noOp, [](const Sample &sample) {
    const Tensor x = randomInput(4, -1.0F);
    const Tensor y = forward(sample, x);
    CHECK(y.shape == x.shape);
    CHECK(y.f == x.f);
  });
}

TEST_CASE("a homogeneous op scales with its input and keeps its largest entry bounded") {
  forEachMarked(&OpDef::homogeneous, [](const Sample &sample) {
    const Tensor x = randomInput(5, 0.0F);
    Tensor scaled = x;
    for (float &v : scaled.f)
      v *= 2.5F;
    const Tensor y = forward(sample, x), yScaled = forward(sample, scaled);
    const float xMax = *std::max_element(x.f.begin(), x.f.end());
    for (size_t k = 0; k < y.f.size(); ++k) {
      CHECK(std::abs(yScaled.f[k] - 2.5F * y.f[k]) <= 1e-6F * 2.5F);
      CHECK(y.f[k] <= xMax);
    }
  });
  SECTION("Clip is not: its bounds do not scale") {
    const Sample clip = samples().at("Clip");
    const Tensor one = nasc::ir::reference::floatTensor(kShape, std::vector<float>(48, 0.4F));
    Tensor two = one;
    for (float &v : two.f)
      v = 0.8F;
    CHECK(forward(clip, two).f[0] != 2 * forward(clip, one).f[0]);
  }
}
