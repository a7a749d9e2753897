// Models compiled for aarch64-linux-gnu (NEON default trace, cross-linked by Debian's
// aarch64-linux-gnu-gcc) and run under qemu-aarch64 through the C ABI equal the host's
// reference executor: ResNet-18 at 1x3x32x32, and one model per kernel kind (dense, grouped,
// depthwise, 1x1 conv, pooling, Gemm), each with a neural step in its schedule trace.
// Nothing here is timed: under an emulator, time says nothing about speed.
#include "test/aarch64/AArch64Run.h"

#include <nlohmann/json.hpp>

using namespace nasc;

namespace {

/// x (1, 8, 10, 10) -> conv1 3x3 pad 1 (16 channels, bias) -> Relu -> conv2 3x3 pad 1 (8) -> y.
const char *kDenseConvs = R"({"name": "dense", "inputs": [{"name": "x", "shape": [1, 8, 10, 10]}],
  "outputs": ["y"],
  "nodes": [
    {"name": "conv1", "op_type": "Conv", "inputs": ["x", "w1", "b1"], "outputs": ["c1"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "relu", "op_type": "Relu", "inputs": ["c1"], "outputs": ["r1"]},
    {"name": "conv2", "op_type": "Conv", "inputs": ["r1", "w2", "b2"], "outputs": ["y"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}}],
  "initializers": [
    {"name": "w1", "shape": [16, 8, 3, 3], "init": "he_normal", "seed": 1},
    {"name": "b1", "shape": [16], "init": "he_normal", "seed": 2},
    {"name": "w2", "shape": [8, 16, 3, 3], "init": "he_normal", "seed": 3},
    {"name": "b2", "shape": [8], "init": "he_normal", "seed": 4}]})";

/// x (1, 8, 10, 10) -> conv 3x3 pad 1 (`K` channels, bias) -> Relu -> y.
std::string convRelu(int K) {
  const std::string k = std::to_string(K);
  return R"({"name": "convrelu", "inputs": [{"name": "x", "shape": [1, 8, 10, 10]}],
  "outputs": ["y"],
  "nodes": [
    {"name": "conv", "op_type": "Conv", "inputs": ["x", "w", "b"], "outputs": ["c"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "relu", "op_type": "Relu", "inputs": ["c"], "outputs": ["y"]}],
  "initializers": [
    {"name": "w", "shape": [)" +
         k + R"(, 8, 3, 3], "init": "he_normal", "seed": 1},
    {"name": "b", "shape": [)" +
         k + R"(], "init": "he_normal", "seed": 2}]})";
}

/// x (1, 16, 8, 8) -> conv1 1x1 (16, bias) -> Relu -> conv2 1x1 (8, no bias) -> y.
const char *kPointwiseConvs = R"({"name": "pointwise",
  "inputs": [{"name": "x", "shape": [1, 16, 8, 8]}], "outputs": ["y"],
  "nodes": [
    {"name": "conv1", "op_type": "Conv", "inputs": ["x", "w1", "b1"], "outputs": ["c1"],
     "attributes": {"kernel_shape": [1, 1]}},
    {"name": "relu", "op_type": "Relu", "inputs": ["c1"], "outputs": ["r1"]},
    {"name": "conv2", "op_type": "Conv", "inputs": ["r1", "w2"], "outputs": ["y"],
     "attributes": {"kernel_shape": [1, 1]}}],
  "initializers": [
    {"name": "w1", "shape": [16, 16, 1, 1], "init": "he_normal", "seed": 1},
    {"name": "b1", "shape": [16], "init": "he_normal", "seed": 2},
    {"name": "w2", "shape": [8, 16, 1, 1], "init": "he_normal", "seed": 3}]})";

/// x (1, 8, 12, 12) -> conv 3x3 pad 1 (8) -> Relu -> MaxPool 3x3 stride 2 pad 1 -> AveragePool
/// 2x2 stride 2 -> y (1, 8, 3, 3).
const char *kPooling = R"({"name": "pooling", "inputs": [{"name": "x", "shape": [1, 8, 12, 12]}],
  "outputs": ["y"],
  "nodes": [
    {"name": "conv", "op_type": "Conv", "inputs": ["x", "w", "b"], "outputs": ["c"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "relu", "op_type": "Relu", "inputs": ["c"], "outputs": ["r"]},
    {"name": "maxpool", "op_type": "MaxPool", "inputs": ["r"], "outputs": ["m"],
     "attributes": {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}},
    {"name": "avgpool", "op_type": "AveragePool", "inputs": ["m"], "outputs": ["y"],
     "attributes": {"kernel_shape": [2, 2], "strides": [2, 2]}}],
  "initializers": [
    {"name": "w", "shape": [8, 8, 3, 3], "init": "he_normal", "seed": 1},
    {"name": "b", "shape": [8], "init": "he_normal", "seed": 2}]})";

/// x (1, 8, 8, 8) -> conv 3x3 pad 1 (16) -> Relu -> GlobalAveragePool -> Flatten -> Gemm
/// (transB, 10 classes) -> y (1, 10).
const char *kClassifier = R"({"name": "classifier",
  "inputs": [{"name": "x", "shape": [1, 8, 8, 8]}], "outputs": ["y"],
  "nodes": [
    {"name": "conv", "op_type": "Conv", "inputs": ["x", "w", "b"], "outputs": ["c"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "relu", "op_type": "Relu", "inputs": ["c"], "outputs": ["r"]},
    {"name": "gap", "op_type": "GlobalAveragePool", "inputs": ["r"], "outputs": ["g"]},
    {"name": "flatten", "op_type": "Flatten", "inputs": ["g"], "outputs": ["f"]},
    {"name": "fc", "op_type": "Gemm", "inputs": ["f", "wf", "bf"], "outputs": ["y"],
     "attributes": {"transB": 1}}],
  "initializers": [
    {"name": "w", "shape": [16, 8, 3, 3], "init": "he_normal", "seed": 1},
    {"name": "b", "shape": [16], "init": "he_normal", "seed": 2},
    {"name": "wf", "shape": [10, 16], "init": "he_normal", "seed": 3},
    {"name": "bf", "shape": [10], "init": "he_normal", "seed": 4}]})";

/// Compiles the model `json` for AArch64 with the trace `{node: [step]}` (`step` a neural step as
/// JSON) and checks it under qemu, with `threads` (empty: 1), against the reference executor on
/// the transformed model.
void checkTransformed(const std::string &name, const std::string &json, const std::string &node,
                      const std::string &step, const std::string &threads = "") {
  const std::filesystem::path dir = test::aarch64Dir(name);
  const std::filesystem::path spec = test::writeFile(dir, name + ".json", json);
  const std::filesystem::path trace = test::writeFile(
      dir, "trace.json", R"({"nasc_schedule": 1, "kernels": {")" + node + R"(": [)" + step + "]}}");
  CHECK(test::transformedQemuError(dir, spec, trace, threads) <= 1e-4);
}

} // namespace

TEST_CASE("ResNet-18 at 1x3x32x32 compiled for AArch64 and run under qemu with 2 threads equals "
          "the reference executor",
          "[aarch64][qemu]") {
  nlohmann::json spec;
  std::ifstream(NASC_SOURCE_DIR "/models/resnet18.json") >> spec;
  spec["inputs"][0]["shape"] = {1, 3, 32, 32};
  const std::filesystem::path dir = test::aarch64Dir("resnet18_32");
  const std::filesystem::path path = test::writeFile(dir, "resnet18_32.json", spec.dump());
  CHECK(test::qemuReferenceError(dir, test::compileForAArch64(dir, path), path, "2") <= 1e-4);
}

TEST_CASE("dense convs after bottleneck(2) run under qemu as the reference executor",
          "[aarch64][qemu]") {
  checkTransformed("dense", kDenseConvs, "conv1", R"({"primitive": "bottleneck", "B": 2})");
}

TEST_CASE("a conv made grouped by group(2) runs under qemu as the reference executor",
          "[aarch64][qemu]") {
  checkTransformed("grouped", convRelu(8), "conv", R"({"primitive": "group", "G": 2})");
}

TEST_CASE("a conv made depthwise (channel multiplier 2) runs under qemu as the reference "
          "executor",
          "[aarch64][qemu]") {
  checkTransformed("depthwise", convRelu(16), "conv", R"({"primitive": "depthwise"})");
}

TEST_CASE("1x1 convs after spatial_bottleneck(2) run under qemu as the reference executor",
          "[aarch64][qemu]") {
  checkTransformed("pointwise", kPointwiseConvs, "conv1",
                   R"({"primitive": "spatial_bottleneck", "S": 2})");
}

TEST_CASE("max and average pooling after a group(2) conv run under qemu with 2 threads as the "
          "reference executor",
          "[aarch64][qemu]") {
  checkTransformed("pooling", kPooling, "conv", R"({"primitive": "group", "G": 2})", "2");
}

TEST_CASE("a Gemm classifier behind a bottleneck(2) conv runs under qemu as the reference "
          "executor",
          "[aarch64][qemu]") {
  checkTransformed("gemm", kClassifier, "conv", R"({"primitive": "bottleneck", "B": 2})");
}
