// readTensorProto on ONNX's conformance test data, checked against the values ONNX's test
// generator writes (onnx/backend/test/case/node/conv.py: x = arange(35) as 1x1x7x5).
#include "ir/Error.h"
#include "ir/import/OnnxImporter.h"

#include <catch2/catch.hpp>

#include <string>

namespace {

const std::string kNodeData = "/usr/share/libonnx-testdata/data/node/";

} // namespace

TEST_CASE("readTensorProto reads the conv test input as arange(35) in 1x1x7x5") {
  nasc::ir::Tensor x = nasc::ir::readTensorProto(
      kNodeData + "test_conv_with_strides_padding/test_data_set_0/input_0.pb");
  REQUIRE(x.dtype == nasc::ir::DType::Float32);
  REQUIRE(x.shape == nasc::ir::Shape{1, 1, 7, 5});
  REQUIRE(x.f.size() == 35);
  for (size_t k = 0; k < 35; ++k)
    CHECK(x.f[k] == static_cast<float>(k));
}

TEST_CASE("readTensorProto reads the conv test weights as ones(1,1,3,3)") {
  nasc::ir::Tensor w = nasc::ir::readTensorProto(
      kNodeData + "test_conv_with_strides_padding/test_data_set_0/input_1.pb");
  REQUIRE(w.shape == nasc::ir::Shape{1, 1, 3, 3});
  for (float v : w.f)
    CHECK(v == 1.0f);
}

TEST_CASE("readTensorProto reads an int64 tensor (reshape test's shape input)") {
  nasc::ir::Tensor shape = nasc::ir::readTensorProto(
      kNodeData + "test_reshape_reordered_all_dims/test_data_set_0/input_1.pb");
  REQUIRE(shape.dtype == nasc::ir::DType::Int64);
  REQUIRE(shape.i == std::vector<int64_t>{4, 2, 3});
}

TEST_CASE("readTensorProto on a missing file is an error naming the file") {
  REQUIRE_THROWS_WITH(nasc::ir::readTensorProto("/nonexistent/x.pb"),
                      Catch::Contains("/nonexistent/x.pb"));
}
