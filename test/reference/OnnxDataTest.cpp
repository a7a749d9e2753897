// Hand-built one-node graphs (attributes as in ONNX's test generator) against the outputs in
// ONNX's conformance data, independent of the ONNX model importer.
#include "TestSupport.h"
#include "runtime/reference/Reference.h"

#include <catch2/catch.hpp>

namespace {

using nasc::ir::Attribute;
using Ints = std::vector<int64_t>;

void checkNodeCase(const std::string &caseName, const std::string &opType,
                   const std::map<std::string, Attribute> &attributes, size_t numInputs) {
  const nasc::test::NodeCase c = nasc::test::onnxNodeCase(caseName, opType, attributes, numInputs);
  const auto outputs = nasc::runtime::runReference(c.graph, c.inputs);
  nasc::test::checkClose(outputs.at("y"), c.expected);
}

} // namespace

TEST_CASE("Conv with strides and symmetric pads matches ONNX data") {
  checkNodeCase("test_conv_with_strides_padding", "Conv",
                {{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}},
                2);
}

TEST_CASE("Conv with asymmetric pads matches ONNX data") {
  checkNodeCase("test_conv_with_strides_and_asymmetric_padding", "Conv",
                {{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 0, 1, 0}}, {"strides", Ints{2, 2}}},
                2);
}

TEST_CASE("Conv with auto_pad SAME_LOWER matches ONNX data") {
  checkNodeCase("test_conv_with_autopad_same", "Conv",
                {{"auto_pad", std::string("SAME_LOWER")},
                 {"kernel_shape", Ints{3, 3}},
                 {"strides", Ints{2, 2}}},
                2);
}

TEST_CASE("MaxPool with ceil_mode matches ONNX data") {
  checkNodeCase("test_maxpool_2d_ceil", "MaxPool",
                {{"ceil_mode", int64_t{1}}, {"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}},
                1);
}

TEST_CASE("MaxPool with auto_pad SAME_LOWER matches ONNX data") {
  checkNodeCase("test_maxpool_2d_same_lower", "MaxPool",
                {{"auto_pad", std::string("SAME_LOWER")}, {"kernel_shape", Ints{2, 2}}}, 1);
}

TEST_CASE("MaxPool with dilations matches ONNX data") {
  checkNodeCase("test_maxpool_2d_dilations", "MaxPool",
                {{"dilations", Ints{2, 2}}, {"kernel_shape", Ints{2, 2}}, {"strides", Ints{1, 1}}},
                1);
}

TEST_CASE("AveragePool with count_include_pad=1 divides by the padded window (ONNX data)") {
  checkNodeCase(
      "test_averagepool_2d_pads_count_include_pad", "AveragePool",
      {{"count_include_pad", int64_t{1}}, {"kernel_shape", Ints{3, 3}}, {"pads", Ints{2, 2, 2, 2}}},
      1);
}

TEST_CASE("AveragePool with pads excludes padding from the divisor by default (ONNX data)") {
  checkNodeCase("test_averagepool_2d_pads", "AveragePool",
                {{"kernel_shape", Ints{3, 3}}, {"pads", Ints{2, 2, 2, 2}}}, 1);
}

TEST_CASE("AveragePool with auto_pad SAME_UPPER matches ONNX data") {
  checkNodeCase("test_averagepool_2d_same_upper", "AveragePool",
                {{"auto_pad", std::string("SAME_UPPER")}, {"kernel_shape", Ints{2, 2}}}, 1);
}

TEST_CASE("AveragePool with ceil_mode matches ONNX data") {
  checkNodeCase("test_averagepool_2d_ceil", "AveragePool",
                {{"ceil_mode", int64_t{1}}, {"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}},
                1);
}

TEST_CASE("GlobalAveragePool matches ONNX data") {
  checkNodeCase("test_globalaveragepool", "GlobalAveragePool", {}, 1);
}

TEST_CASE("BatchNormalization uses epsilon (ONNX data)") {
  checkNodeCase("test_batchnorm_epsilon", "BatchNormalization",
                {{"epsilon", 0.009999999776482582f}}, 5);
}

TEST_CASE("Add broadcasts a vector over a 3-d tensor (ONNX data)") {
  checkNodeCase("test_add_bcast", "Add", {}, 2);
}

TEST_CASE("Gemm with alpha, beta, transA, transB and a row bias matches ONNX data") {
  checkNodeCase("test_gemm_all_attributes", "Gemm",
                {{"alpha", 0.25f}, {"beta", 0.35f}, {"transA", int64_t{1}}, {"transB", int64_t{1}}},
                3);
}

TEST_CASE("Gemm with a scalar bias matches ONNX data") {
  checkNodeCase("test_gemm_default_scalar_bias", "Gemm", {}, 3);
}

TEST_CASE("Concat along a negative axis matches ONNX data") {
  checkNodeCase("test_concat_3d_axis_negative_2", "Concat", {{"axis", int64_t{-2}}}, 2);
}

TEST_CASE("Reshape with 0 and -1 entries matches ONNX data") {
  checkNodeCase("test_reshape_zero_and_negative_dim", "Reshape", {}, 2);
}

TEST_CASE("Flatten with a negative axis matches ONNX data") {
  checkNodeCase("test_flatten_negative_axis2", "Flatten", {{"axis", int64_t{-2}}}, 1);
}

TEST_CASE("Relu matches ONNX data") { checkNodeCase("test_relu", "Relu", {}, 1); }
