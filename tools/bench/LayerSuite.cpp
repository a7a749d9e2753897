#include "tools/bench/LayerSuite.h"

#include "ir/Error.h"

#include <algorithm>
#include <set>

namespace nasc::bench {

int64_t LayerShape::outH() const { return gemm ? 1 : (H + 2 * pad - kernel) / stride + 1; }

int64_t LayerShape::outW() const { return gemm ? 1 : (W + 2 * pad - kernel) / stride + 1; }

double LayerShape::flops() const {
  if (gemm)
    return 2.0 * static_cast<double>(K * C);
  return 2.0 * static_cast<double>(K * outH() * outW() * (C / group) * kernel * kernel);
}

std::string LayerShape::describe() const {
  if (gemm)
    return "gemm 1x" + std::to_string(C) + " -> 1x" + std::to_string(K);
  auto chw = [](int64_t c, int64_t h, int64_t w) {
    return std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w);
  };
  return chw(C, H, W) + " -> " + chw(K, outH(), outW()) + " " + std::to_string(kernel) + "x" +
         std::to_string(kernel) + " s" + std::to_string(stride) + " g" + std::to_string(group);
}

std::string groupName(LayerGroup group) {
  switch (group) {
  case LayerGroup::Dense3x3:
    return "dense 3x3";
  case LayerGroup::GroupedDepthwise1x1:
    return "grouped / depthwise / 1x1";
  case LayerGroup::Gemm:
    return "gemm";
  case LayerGroup::Variant:
    return "variants";
  }
  return "";
}

namespace {

/// A 3x3 pad-1 conv of C channels at HxH to K channels.
LayerShape conv3x3(int64_t C, int64_t H, int64_t K, int64_t stride = 1, int64_t group = 1) {
  return {C, H, H, K, 3, stride, 1, group, false};
}

/// A 1x1 pad-0 conv of C channels at HxH to K channels.
LayerShape conv1x1(int64_t C, int64_t H, int64_t K, int64_t stride = 1) {
  return {C, H, H, K, 1, stride, 0, 1, false};
}

/// A depthwise 3x3 pad-1 conv (group = C = K).
LayerShape depthwise3x3(int64_t C, int64_t H, int64_t stride = 1) {
  return conv3x3(C, H, C, stride, C);
}

/// The 3x3 convs of one ResNet-34 (basic block) network: per stage the stride-2 first conv and
/// the stride-1 conv, stage 1 at spatial size `h1`; names `prefix`_l1, _l2_s2, _l2, ...
void addResNetConvs(std::vector<BenchLayer> &suite, const std::string &prefix, int64_t h1) {
  suite.push_back({prefix + "_l1", LayerGroup::Dense3x3, conv3x3(64, h1, 64), "", 3});
  for (int stage = 2, c = 64, h = static_cast<int>(h1); stage <= 4; ++stage, c *= 2, h /= 2) {
    const std::string name = prefix + "_l" + std::to_string(stage);
    suite.push_back({name + "_s2", LayerGroup::Dense3x3, conv3x3(c, h, 2 * c, 2), "", 3});
    suite.push_back({name, LayerGroup::Dense3x3, conv3x3(2 * c, h / 2, 2 * c), "", 3});
  }
}

/// The 1x1 stride-2 projections of the stride-2 stages of a ResNet-34 with stage 1 at `h1`.
void addProjections(std::vector<BenchLayer> &suite, const std::string &prefix, int64_t h1) {
  for (int stage = 2, c = 64, h = static_cast<int>(h1); stage <= 4; ++stage, c *= 2, h /= 2)
    suite.push_back({prefix + "_proj" + std::to_string(stage), LayerGroup::GroupedDepthwise1x1,
                     conv1x1(c, h, 2 * c, 2), "", 3});
}

/// ResNeXt-50 32x4d's grouped 3x3 convs (group 32): stride 1 in stages 1-4, and stage 2's
/// stride-2 first conv.
void addResNeXtConvs(std::vector<BenchLayer> &suite) {
  const auto g = LayerGroup::GroupedDepthwise1x1;
  suite.push_back({"rx50_l1", g, conv3x3(128, 56, 128, 1, 32), ""});
  suite.push_back({"rx50_l2_s2", g, conv3x3(256, 56, 256, 2, 32), ""});
  suite.push_back({"rx50_l2", g, conv3x3(256, 28, 256, 1, 32), ""});
  suite.push_back({"rx50_l3", g, conv3x3(512, 14, 512, 1, 32), ""});
  suite.push_back({"rx50_l4", g, conv3x3(1024, 7, 1024, 1, 32), ""});
}

/// ResNeXt-50 32x4d's 1x1 convs, the bulk of its FLOP: per stage the reduction into the grouped
/// conv's width and the expansion out of it (stage 2's first reduction still at 56x56), and
/// stage 2's stride-2 projection.
void addResNeXtPointwise(std::vector<BenchLayer> &suite) {
  const auto g = LayerGroup::GroupedDepthwise1x1;
  suite.push_back({"rx50_pw256_128_56", g, conv1x1(256, 56, 128), ""});
  suite.push_back({"rx50_pw128_256_56", g, conv1x1(128, 56, 256), ""});
  suite.push_back({"rx50_pw256_256_56", g, conv1x1(256, 56, 256), ""});
  suite.push_back({"rx50_proj2_s2", g, conv1x1(256, 56, 512, 2), ""});
  suite.push_back({"rx50_pw512_256_28", g, conv1x1(512, 28, 256), ""});
  suite.push_back({"rx50_pw256_512_28", g, conv1x1(256, 28, 512), ""});
  suite.push_back({"rx50_pw1024_512_14", g, conv1x1(1024, 14, 512), ""});
  suite.push_back({"rx50_pw2048_1024_7", g, conv1x1(2048, 7, 1024), ""});
}

/// CIFAR ResNeXt-29 2x64d's stage-2 convs (models/resnext29_2x64d.json, 16x16): the grouped 3x3
/// (group 2), the 1x1 expansion out of it and the 1x1 stride-2 projection from 32x32 (the 1x1s
/// run at 5-8 GFLOP/s on Zen 5: LLVM cannot prove their loads consecutive, docs/performance.md).
void addResNeXt29Convs(std::vector<BenchLayer> &suite) {
  const auto g = LayerGroup::GroupedDepthwise1x1;
  suite.push_back({"rx29_l2", g, conv3x3(256, 16, 256, 1, 2), ""});
  suite.push_back({"rx29_pw256_512_16", g, conv1x1(256, 16, 512), ""});
  suite.push_back({"rx29_proj2_s2", g, conv1x1(256, 32, 512, 2), ""});
}

/// MobileNetV2's depthwise 3x3 convs (stride 1 and 2) and a sample of its pointwise 1x1 convs
/// (expansions and projections), named by channels and input size.
void addMobileNetV2Convs(std::vector<BenchLayer> &suite) {
  const auto g = LayerGroup::GroupedDepthwise1x1;
  suite.push_back({"mv2_dw32_112", g, depthwise3x3(32, 112), ""});
  suite.push_back({"mv2_dw96_112_s2", g, depthwise3x3(96, 112, 2), ""});
  suite.push_back({"mv2_dw144_56", g, depthwise3x3(144, 56), ""});
  suite.push_back({"mv2_dw192_28", g, depthwise3x3(192, 28), ""});
  suite.push_back({"mv2_dw384_14", g, depthwise3x3(384, 14), ""});
  suite.push_back({"mv2_dw576_14_s2", g, depthwise3x3(576, 14, 2), ""});
  suite.push_back({"mv2_dw960_7", g, depthwise3x3(960, 7), ""});
  suite.push_back({"mv2_pw32_16_112", g, conv1x1(32, 112, 16), ""});
  suite.push_back({"mv2_pw16_96_112", g, conv1x1(16, 112, 96), ""});
  suite.push_back({"mv2_pw144_24_56", g, conv1x1(144, 56, 24), ""});
  suite.push_back({"mv2_pw32_192_28", g, conv1x1(32, 28, 192), ""});
  suite.push_back({"mv2_pw384_64_14", g, conv1x1(384, 14, 64), ""});
  suite.push_back({"mv2_pw960_160_7", g, conv1x1(960, 7, 160), ""});
  suite.push_back({"mv2_pw320_1280_7", g, conv1x1(320, 7, 1280), ""});
}

/// Variants of the ResNet-18 block convs (the shapes of r34_224_*): group 2/4/8, bottleneck 2/4
/// and spatial_bottleneck(2) of layer 1's conv, and group(4) of every other distinct shape.
void addVariants(std::vector<BenchLayer> &suite) {
  const auto v = LayerGroup::Variant;
  const std::string l1 = "r34_224_l1";
  for (int64_t g : {2, 4, 8})
    suite.push_back({"r18_l1_g" + std::to_string(g), v, conv3x3(64, 56, 64, 1, g), l1, 3});
  suite.push_back({"r18_l1_bneck2", v, conv3x3(64, 56, 32), l1, 3});
  suite.push_back({"r18_l1_bneck4", v, conv3x3(64, 56, 16), l1, 3});
  suite.push_back({"r18_l1_sbneck2", v, conv3x3(64, 56, 64, 2), l1, 3});
  std::vector<BenchLayer> grouped;
  for (const BenchLayer &layer : suite)
    if (layer.group == LayerGroup::Dense3x3 && layer.name.starts_with("r34_224_") &&
        layer.name != l1) {
      LayerShape shape = layer.shape;
      shape.group = 4;
      grouped.push_back({"r18" + layer.name.substr(7) + "_g4", v, shape, layer.name, 3});
    }
  suite.insert(suite.end(), grouped.begin(), grouped.end());
}

} // namespace

std::vector<BenchLayer> layerSuite() {
  std::vector<BenchLayer> suite;
  addResNetConvs(suite, "r34_224", 56);
  addResNetConvs(suite, "r34_cifar", 32);
  addProjections(suite, "r34_224", 56);
  addProjections(suite, "r34_cifar", 32);
  addResNeXtConvs(suite);
  addResNeXtPointwise(suite);
  addResNeXt29Convs(suite);
  addMobileNetV2Convs(suite);
  suite.push_back({"fc_512_1000", LayerGroup::Gemm, {512, 1, 1, 1000, 1, 1, 0, 1, true}, ""});
  addVariants(suite);
  return suite;
}

std::vector<BenchLayer> selectLayers(const std::vector<BenchLayer> &suite,
                                     const std::vector<std::string> &patterns) {
  auto matches = [&](const std::string &name) {
    return patterns.empty() || std::any_of(patterns.begin(), patterns.end(), [&](const auto &p) {
             return name.find(p) != std::string::npos;
           });
  };
  std::set<std::string> wanted;
  for (const BenchLayer &layer : suite)
    if (matches(layer.name)) {
      wanted.insert(layer.name);
      if (!layer.original.empty())
        wanted.insert(layer.original);
    }
  std::vector<BenchLayer> selected;
  for (const BenchLayer &layer : suite)
    if (wanted.count(layer.name))
      selected.push_back(layer);
  if (selected.empty()) {
    std::string list;
    for (const auto &p : patterns)
      list += (list.empty() ? "'" : ", '") + p + "'";
    throw Error("--filter " + list + ": no layer of the suite matches (--list prints them)");
  }
  return selected;
}

} // namespace nasc::bench
