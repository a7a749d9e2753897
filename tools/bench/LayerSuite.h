// The layers of the per-layer benchmark against oneDNN (issue #11 item 4): shapes, FLOP counts
// and the suite of ResNet-34, ResNeXt-50, MobileNetV2 and ResNet-18-variant layers, batch 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nasc::bench {

/// One layer at batch 1: an ONNX Conv on a 1 x C x H x W (NCHW) input with K output channels, a
/// square `kernel`, `stride` and `pad` on every side, `group` groups and a bias; or, when `gemm`,
/// an ONNX Gemm Y = X·Wᵀ + b (transB = 1) with X 1 x C, W K x C and Y 1 x K (H, W unused).
struct LayerShape {
  int64_t C = 0, H = 1, W = 1, K = 0;
  int64_t kernel = 3, stride = 1, pad = 1, group = 1;
  bool gemm = false;

  /// Output rows and columns of the conv, floor((H + 2·pad - kernel) / stride) + 1 (ONNX Conv);
  /// 1 for a Gemm.
  int64_t outH() const;
  int64_t outW() const;
  /// Multiply-adds times 2 (bias excluded): 2·K·OH·OW·(C/group)·kernel² for a conv, 2·K·C for a
  /// Gemm.
  double flops() const;
  /// "64x56x56 -> 128x28x28 3x3 s2 g1" (C x H x W -> K x OH x OW, kernel, stride, group), or
  /// "gemm 1x512 -> 1x1000".
  std::string describe() const;
};

/// Group of layers whose nasc/oneDNN ratios are summarised by one geometric mean.
enum class LayerGroup { Dense3x3, GroupedDepthwise1x1, Gemm, Variant };

/// Heading of a group in the report, e.g. "dense 3x3".
std::string groupName(LayerGroup group);

/// A named layer of the suite. A Variant names the layer it was derived from (`original`, a
/// Dense3x3 layer of the suite) by a neural transformation: group(G), bottleneck(B) (K / B output
/// channels) or the strided conv of spatial_bottleneck(S) (docs/transformations.md; its Resize is
/// not part of the layer).
struct BenchLayer {
  std::string name;
  LayerGroup group = LayerGroup::Dense3x3;
  LayerShape shape;
  std::string original;
  /// Kernel size (1 or 3) of the convs next to the layer in its network: 3 in ResNet basic
  /// blocks (their 3x3 convs, projections and variants), else 1. layer_bench --nasc-kernel puts
  /// the layer between identity convs of this size, so the layouts around it are the network's.
  int64_t neighbourKernel = 1;
};

/// The whole suite in report order: ResNet-34's 3x3 convs at 224 and 32 (CIFAR) input and their
/// 1x1 stride-2 projections, ResNeXt-50 (32x4d) grouped 3x3, MobileNetV2 depthwise 3x3 and
/// pointwise 1x1, the classifier Gemm 1x512 -> 1000, and variants of the ResNet-18 block convs.
std::vector<BenchLayer> layerSuite();

/// The layers of `suite` whose name contains one of `patterns` (all layers if `patterns` is
/// empty), plus the originals of selected variants, in suite order. Throws nasc::Error naming
/// the patterns if nothing matches.
std::vector<BenchLayer> selectLayers(const std::vector<BenchLayer> &suite,
                                     const std::vector<std::string> &patterns);

} // namespace nasc::bench
