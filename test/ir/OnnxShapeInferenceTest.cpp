// ONNX import + shape inference checked against the output shapes stored in ONNX's conformance
// test data (output_0.pb of each case), which were computed by ONNX's numpy reference.
#include "ir/Error.h"
#include "ir/import/OnnxImporter.h"
#include "ir/passes/ShapeInference.h"
#include "ir/passes/SupportedOps.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

namespace {

const std::string kData = "/usr/share/libonnx-testdata/data/";

/// Makes graph input `name` an initializer holding the case's input_<k>.pb (e.g. a Reshape's
/// shape, which nasc requires to be constant).
void makeInputConstant(nasc::ir::Graph &graph, const std::string &caseDir, size_t k) {
  const std::string name = graph.inputs.at(k);
  graph.initializers[name] =
      nasc::ir::readTensorProto(caseDir + "/test_data_set_0/input_" + std::to_string(k) + ".pb");
  graph.inputs.erase(graph.inputs.begin() + static_cast<std::ptrdiff_t>(k));
}

/// Imports case `name`, forgets the output shapes the model declares, infers shapes and
/// returns {inferred, expected from output_0.pb}. With `constantOtherInputs`, every graph input
/// but the first becomes an initializer (a Reshape's shape, a Slice's starts, a Resize's scales).
std::pair<nasc::ir::Shape, nasc::ir::Shape> inferredAndExpected(const std::string &name,
                                                                bool constantOtherInputs) {
  const std::string dir = kData + name;
  nasc::ir::Graph graph = nasc::ir::importOnnx(dir + "/model.onnx");
  for (size_t k = graph.inputs.size(); constantOtherInputs && k-- > 1;)
    makeInputConstant(graph, dir, k);
  nasc::ir::checkSupported(graph);
  for (const std::string &out : graph.outputs)
    graph.values.erase(out);
  nasc::ir::inferShapes(graph);
  return {graph.shapeOf(graph.outputs.at(0)),
          nasc::ir::readTensorProto(dir + "/test_data_set_0/output_0.pb").shape};
}

void checkCase(const std::string &name, bool constantOtherInputs = false) {
  INFO(name);
  auto [inferred, expected] = inferredAndExpected(name, constantOtherInputs);
  CHECK(nasc::ir::shapeToString(inferred) == nasc::ir::shapeToString(expected));
}

} // namespace

TEST_CASE("Conv output shapes match ONNX test data (strides, asymmetric pads, auto_pad)") {
  for (const char *name :
       {"node/test_conv_with_strides_and_asymmetric_padding", "node/test_conv_with_strides_padding",
        "node/test_conv_with_strides_no_padding", "node/test_conv_with_autopad_same",
        "node/test_basic_conv_with_padding", "node/test_basic_conv_without_padding",
        "pytorch-converted/test_Conv2d_groups", "pytorch-converted/test_Conv2d_depthwise_strided",
        "pytorch-converted/test_Conv2d_dilated", "pytorch-converted/test_Conv1d_stride",
        "pytorch-converted/test_Conv3d_dilated_strided", "pytorch-converted/test_Conv2d_padding"})
    checkCase(name);
}

TEST_CASE("MaxPool output shapes match ONNX test data (ceil_mode, SAME_UPPER/LOWER, dilations)") {
  for (const char *name :
       {"node/test_maxpool_2d_ceil", "node/test_maxpool_2d_same_upper",
        "node/test_maxpool_2d_same_lower", "node/test_maxpool_2d_precomputed_same_upper",
        "node/test_maxpool_2d_pads", "node/test_maxpool_2d_precomputed_pads",
        "node/test_maxpool_2d_dilations", "node/test_maxpool_2d_strides",
        "node/test_maxpool_2d_default", "node/test_maxpool_1d_default",
        "node/test_maxpool_3d_default", "pytorch-converted/test_MaxPool2d_stride_padding_dilation"})
    checkCase(name);
}

TEST_CASE("AveragePool output shapes match ONNX test data (count_include_pad, ceil, SAME)") {
  for (const char *name :
       {"node/test_averagepool_2d_ceil", "node/test_averagepool_2d_pads",
        "node/test_averagepool_2d_pads_count_include_pad",
        "node/test_averagepool_2d_precomputed_pads_count_include_pad",
        "node/test_averagepool_2d_same_upper", "node/test_averagepool_2d_same_lower",
        "node/test_averagepool_2d_precomputed_same_upper", "node/test_averagepool_2d_strides",
        "node/test_averagepool_2d_default", "pytorch-converted/test_AvgPool2d_stride"})
    checkCase(name);
}

TEST_CASE("Other supported ops' output shapes match ONNX test data") {
  for (const char *name : {"node/test_globalaveragepool",
                           "node/test_batchnorm_example",
                           "node/test_batchnorm_epsilon",
                           "pytorch-converted/test_BatchNorm2d_eval",
                           "node/test_relu",
                           "node/test_add",
                           "node/test_add_bcast",
                           "node/test_identity",
                           "node/test_dropout_default",
                           "node/test_flatten_axis0",
                           "node/test_flatten_axis2",
                           "node/test_flatten_default_axis",
                           "node/test_flatten_negative_axis1",
                           "node/test_flatten_negative_axis4",
                           "node/test_gemm_all_attributes",
                           "node/test_gemm_transposeA",
                           "node/test_gemm_transposeB",
                           "node/test_gemm_default_scalar_bias",
                           "node/test_gemm_default_no_bias",
                           "pytorch-converted/test_Linear",
                           "node/test_concat_1d_axis_0",
                           "node/test_concat_2d_axis_negative_1",
                           "node/test_concat_3d_axis_negative_3",
                           "node/test_concat_3d_axis_2",
                           "node/test_constant"})
    checkCase(name);
}

TEST_CASE("Reshape with a constant shape matches ONNX test data (0, -1, allowzero)") {
  for (const char *name :
       {"node/test_reshape_negative_dim", "node/test_reshape_zero_and_negative_dim",
        "node/test_reshape_reordered_all_dims", "node/test_reshape_extended_dims",
        "node/test_reshape_reduced_dims", "node/test_reshape_one_dim",
        "node/test_reshape_allowzero_reordered"})
    checkCase(name, true);
}

TEST_CASE("Slice with constant starts / ends / axes / steps matches ONNX test data") {
  for (const char *name :
       {"node/test_slice", "node/test_slice_default_axes", "node/test_slice_default_steps",
        "node/test_slice_end_out_of_bounds", "node/test_slice_neg", "node/test_slice_neg_steps",
        "node/test_slice_negative_axes", "node/test_slice_start_out_of_bounds"})
    checkCase(name, true);
}

TEST_CASE("Resize (nearest) with constant scales or sizes matches ONNX test data") {
  for (const char *name :
       {"node/test_resize_downsample_scales_nearest", "node/test_resize_downsample_sizes_nearest",
        "node/test_resize_upsample_scales_nearest", "node/test_resize_upsample_sizes_nearest",
        "node/test_resize_upsample_sizes_nearest_ceil_half_pixel"})
    checkCase(name, true);
}

TEST_CASE("Unsupported ops and attribute values are rejected naming node, op and attribute") {
  auto check = [](const std::string &name) {
    nasc::ir::Graph graph = nasc::ir::importOnnx(kData + name + "/model.onnx");
    nasc::ir::checkSupported(graph);
  };
  REQUIRE_THROWS_WITH(check("node/test_leakyrelu"),
                      Catch::Contains("LeakyRelu") && Catch::Contains("not supported"));
  REQUIRE_THROWS_WITH(check("node/test_batchnorm_example_training_mode"),
                      Catch::Contains("training_mode"));
  REQUIRE_THROWS_WITH(check("node/test_resize_upsample_scales_linear"),
                      Catch::Contains("Resize") && Catch::Contains("attribute 'mode'") &&
                          Catch::Contains("'linear' is not supported"));
  REQUIRE_THROWS_WITH(check("node/test_maxpool_with_argmax_2d_precomputed_pads"),
                      Catch::Contains("MaxPool") && Catch::Contains("output 1"));
}

TEST_CASE("Import errors name the file and the offending value or attribute") {
  REQUIRE_THROWS_WITH(nasc::ir::importOnnx(kData + "node/test_identity_sequence/model.onnx"),
                      Catch::Contains("not a tensor"));
  REQUIRE_THROWS_WITH(nasc::ir::importOnnx(kData + "node/test_add_uint8/model.onnx"),
                      Catch::Contains("UINT8"));
  REQUIRE_THROWS_WITH(nasc::ir::importOnnx(kData + "node/test_if/model.onnx"),
                      Catch::Contains("'cond'") && Catch::Contains("BOOL"));
  REQUIRE_THROWS_WITH(nasc::ir::importOnnx("/nonexistent/model.onnx"),
                      Catch::Contains("/nonexistent/model.onnx"));
}
