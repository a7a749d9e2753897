// Lowered kernels, executed by the test interpreter, reproduce ONNX's conformance outputs
// (onnx/backend/test/case/node/*.py and PyTorch-converted modules), and stay in bounds.
#include "LowerInterpreter.h"
#include "LowerOnnxCase.h"
#include "ir/lower/Lower.h"

#include <catch2/catch.hpp>

#include <cmath>

namespace {

using nasc::lowertest::OnnxCase;

/// Lowers the case's graph, checks every kernel's accesses, runs it and compares every output
/// with the ONNX test data (relative tolerance 1e-4 plus absolute 1e-5).
void checkCase(const OnnxCase &c) {
  nasc::ir::Program program = nasc::ir::lowerGraph(c.graph);
  for (const auto &call : program.calls)
    CHECK(nasc::lowertest::outOfBoundsAccesses(call.kernel).empty());
  std::vector<std::vector<float>> inputs;
  for (const auto &t : c.inputs)
    inputs.push_back(t.f);
  std::vector<std::vector<float>> outputs = nasc::lowertest::runProgram(program, inputs);
  REQUIRE(outputs.size() == c.outputs.size());
  for (size_t k = 0; k < outputs.size(); ++k) {
    REQUIRE(outputs[k].size() == c.outputs[k].f.size());
    size_t mismatches = 0;
    for (size_t i = 0; i < outputs[k].size(); ++i) {
      float expected = c.outputs[k].f[i];
      if (!(std::fabs(outputs[k][i] - expected) <= 1e-5f + 1e-4f * std::fabs(expected)))
        ++mismatches;
    }
    CHECK(mismatches == 0);
  }
}

void checkNodeCase(const std::string &name, const std::vector<size_t> &constants = {}) {
  INFO(name);
  checkCase(nasc::lowertest::readOnnxCase("node", name, constants));
}

} // namespace

TEST_CASE("Conv kernels match ONNX node test data (padding, strides, asymmetric pads, SAME)") {
  auto name =
      GENERATE(as<std::string>{}, "test_basic_conv_with_padding", "test_basic_conv_without_padding",
               "test_conv_with_strides_padding", "test_conv_with_strides_no_padding",
               "test_conv_with_strides_and_asymmetric_padding", "test_conv_with_autopad_same");
  checkNodeCase(name);
}

TEST_CASE("Conv kernels match PyTorch-converted Conv2d modules (groups, depthwise, dilation)") {
  auto name = GENERATE(as<std::string>{}, "test_Conv2d", "test_Conv2d_groups",
                       "test_Conv2d_groups_thnn", "test_Conv2d_depthwise",
                       "test_Conv2d_depthwise_padded", "test_Conv2d_depthwise_strided",
                       "test_Conv2d_depthwise_with_multiplier", "test_Conv2d_dilated",
                       "test_Conv2d_no_bias", "test_Conv2d_padding", "test_Conv2d_strided");
  INFO(name);
  checkCase(nasc::lowertest::readOnnxCase("pytorch-converted", name));
}

TEST_CASE("MaxPool kernels match ONNX node test data (pads, strides, dilations, ceil, SAME)") {
  auto name =
      GENERATE(as<std::string>{}, "test_maxpool_2d_default", "test_maxpool_2d_pads",
               "test_maxpool_2d_strides", "test_maxpool_2d_ceil", "test_maxpool_2d_dilations",
               "test_maxpool_2d_same_upper", "test_maxpool_2d_same_lower",
               "test_maxpool_2d_precomputed_pads", "test_maxpool_2d_precomputed_strides",
               "test_maxpool_2d_precomputed_same_upper");
  checkNodeCase(name);
}

TEST_CASE("MaxPool kernel matches PyTorch's MaxPool2d with stride, padding and dilation") {
  checkCase(
      nasc::lowertest::readOnnxCase("pytorch-converted", "test_MaxPool2d_stride_padding_dilation"));
}

TEST_CASE("AveragePool kernels match ONNX node test data (count_include_pad, ceil, SAME)") {
  auto name = GENERATE(as<std::string>{}, "test_averagepool_2d_default", "test_averagepool_2d_pads",
                       "test_averagepool_2d_pads_count_include_pad", "test_averagepool_2d_strides",
                       "test_averagepool_2d_ceil", "test_averagepool_2d_same_upper",
                       "test_averagepool_2d_same_lower", "test_averagepool_2d_precomputed_pads",
                       "test_averagepool_2d_precomputed_pads_count_include_pad",
                       "test_averagepool_2d_precomputed_strides",
                       "test_averagepool_2d_precomputed_same_upper");
  checkNodeCase(name);
}

TEST_CASE("Conv kernels match PyTorch-converted Conv1d modules (pads, strides, dilation, groups)") {
  auto name = GENERATE(as<std::string>{}, "test_Conv1d", "test_Conv1d_dilated",
                       "test_Conv1d_groups", "test_Conv1d_pad1", "test_Conv1d_pad1size1",
                       "test_Conv1d_pad2", "test_Conv1d_pad2size1", "test_Conv1d_stride");
  INFO(name);
  checkCase(nasc::lowertest::readOnnxCase("pytorch-converted", name));
}

TEST_CASE("Conv kernels match PyTorch-converted Conv3d modules (pads, strides, dilation, groups)") {
  auto name = GENERATE(as<std::string>{}, "test_Conv3d", "test_Conv3d_dilated",
                       "test_Conv3d_dilated_strided", "test_Conv3d_groups", "test_Conv3d_no_bias",
                       "test_Conv3d_stride", "test_Conv3d_stride_padding");
  INFO(name);
  checkCase(nasc::lowertest::readOnnxCase("pytorch-converted", name));
}

TEST_CASE("1-d and 3-d MaxPool and AveragePool kernels match ONNX node test data") {
  auto name = GENERATE(as<std::string>{}, "test_maxpool_1d_default", "test_maxpool_3d_default",
                       "test_averagepool_1d_default", "test_averagepool_3d_default");
  checkNodeCase(name);
}

TEST_CASE("1-d and 3-d pooling kernels match PyTorch-converted MaxPool and AvgPool modules") {
  auto name = GENERATE(as<std::string>{}, "test_MaxPool1d", "test_MaxPool1d_stride",
                       "test_MaxPool1d_stride_padding_dilation", "test_MaxPool3d",
                       "test_MaxPool3d_stride", "test_MaxPool3d_stride_padding", "test_AvgPool3d",
                       "test_AvgPool3d_stride", "test_AvgPool3d_stride1_pad0_gpu_input");
  INFO(name);
  checkCase(nasc::lowertest::readOnnxCase("pytorch-converted", name));
}

TEST_CASE("Global pooling kernels match ONNX node test data") {
  auto name =
      GENERATE(as<std::string>{}, "test_globalaveragepool", "test_globalaveragepool_precomputed",
               "test_globalmaxpool", "test_globalmaxpool_precomputed");
  checkNodeCase(name);
}

TEST_CASE("Gemm kernels match ONNX node test data (alpha, beta, transposes, C broadcast)") {
  auto name = GENERATE(
      as<std::string>{}, "test_gemm_all_attributes", "test_gemm_alpha", "test_gemm_beta",
      "test_gemm_default_matrix_bias", "test_gemm_default_no_bias", "test_gemm_default_scalar_bias",
      "test_gemm_default_single_elem_vector_bias", "test_gemm_default_vector_bias",
      "test_gemm_default_zero_bias", "test_gemm_transposeA", "test_gemm_transposeB");
  checkNodeCase(name);
}

TEST_CASE("Gemm kernel matches PyTorch's Linear (transB with bias)") {
  checkCase(nasc::lowertest::readOnnxCase("pytorch-converted", "test_Linear"));
}

TEST_CASE("Concat kernels match ONNX node test data on every axis") {
  auto name =
      GENERATE(as<std::string>{}, "test_concat_1d_axis_0", "test_concat_2d_axis_0",
               "test_concat_2d_axis_1", "test_concat_2d_axis_negative_1", "test_concat_3d_axis_0",
               "test_concat_3d_axis_1", "test_concat_3d_axis_2", "test_concat_3d_axis_negative_3");
  checkNodeCase(name);
}

TEST_CASE("Flatten kernels match ONNX node test data on every axis") {
  auto name =
      GENERATE(as<std::string>{}, "test_flatten_axis0", "test_flatten_axis1", "test_flatten_axis2",
               "test_flatten_axis3", "test_flatten_default_axis", "test_flatten_negative_axis1");
  checkNodeCase(name);
}

TEST_CASE("Reshape kernels match ONNX node test data (merges, splits and reorders)") {
  auto name =
      GENERATE(as<std::string>{}, "test_reshape_reordered_all_dims",
               "test_reshape_reordered_last_dims", "test_reshape_reduced_dims",
               "test_reshape_extended_dims", "test_reshape_one_dim", "test_reshape_negative_dim");
  checkNodeCase(name, {1});
}

TEST_CASE("Element-wise kernels match ONNX node test data (Relu, Add with broadcasting)") {
  auto name = GENERATE(as<std::string>{}, "test_relu", "test_add", "test_add_bcast");
  checkNodeCase(name);
}

TEST_CASE("BatchNormalization kernels match ONNX node test data in inference mode") {
  auto name = GENERATE(as<std::string>{}, "test_batchnorm_epsilon", "test_batchnorm_example");
  checkNodeCase(name, {1, 2, 3, 4});
}

TEST_CASE("Sub, Mul, Div kernels match ONNX node test data with broadcasting") {
  auto name = GENERATE(as<std::string>{}, "test_sub", "test_sub_bcast", "test_sub_example",
                       "test_mul", "test_mul_bcast", "test_mul_example", "test_div",
                       "test_div_bcast", "test_div_example");
  checkNodeCase(name);
}

TEST_CASE("Clip kernels match ONNX node test data with constant bounds") {
  checkNodeCase("test_clip", {1, 2});
  checkNodeCase("test_clip_example", {1, 2});
  checkNodeCase("test_clip_splitbounds", {1, 2});
  checkNodeCase("test_clip_default_min", {1});
  checkNodeCase("test_clip_default_max", {1});
}

TEST_CASE("MatMul, Squeeze, Unsqueeze and Identity kernels match ONNX node test data") {
  checkNodeCase("test_matmul_2d");
  checkNodeCase("test_identity");
  checkNodeCase("test_squeeze", {1});
  checkNodeCase("test_unsqueeze_axis_1", {1});
  checkNodeCase("test_unsqueeze_two_axes", {1});
}

TEST_CASE("Slice kernels match ONNX node test data (negative indices, clamping, steps, axes)") {
  auto name = GENERATE(as<std::string>{}, "test_slice", "test_slice_default_axes",
                       "test_slice_default_steps", "test_slice_end_out_of_bounds", "test_slice_neg",
                       "test_slice_neg_steps", "test_slice_negative_axes");
  checkNodeCase(name, {1, 2, 3, 4});
}

TEST_CASE("Resize nearest kernels match ONNX node test data (scales, sizes, align_corners)") {
  auto name = GENERATE(as<std::string>{}, "test_resize_upsample_scales_nearest",
                       "test_resize_downsample_scales_nearest",
                       "test_resize_upsample_sizes_nearest", "test_resize_downsample_sizes_nearest",
                       "test_resize_upsample_sizes_nearest_floor_align_corners");
  checkNodeCase(name, {1});
}

TEST_CASE("graphs from loadModel (import, folding, shape inference) lower and run correctly, "
          "also one without inputs") {
  auto [suite, name] = GENERATE(
      table<std::string, std::string>({{"pytorch-converted", "test_Conv2d_groups"},
                                       {"pytorch-converted", "test_Conv2d_depthwise_padded"},
                                       {"pytorch-converted", "test_AvgPool2d_stride"},
                                       {"pytorch-converted", "test_Linear"},
                                       {"pytorch-operator", "test_operator_flatten"},
                                       {"pytorch-operator", "test_operator_concat2"},
                                       {"pytorch-operator", "test_operator_addmm"},
                                       {"pytorch-operator", "test_operator_mm"},
                                       {"node", "test_conv_with_autopad_same"},
                                       {"node", "test_maxpool_2d_same_lower"},
                                       {"node", "test_constant"}}));
  INFO(suite << "/" << name);
  checkCase(nasc::lowertest::loadOnnxCase(suite, name));
}
