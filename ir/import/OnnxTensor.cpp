#include "ir/import/OnnxTensor.h"

#include "ir/Error.h"
#include "ir/import/OnnxImporter.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>

namespace nasc::ir {

namespace {

std::string tensorContext(const onnx::TensorProto &proto, const std::string &context) {
  return context + ": tensor '" + proto.name() + "'";
}

template <typename T>
std::vector<T> fromRawData(const std::string &raw, int64_t count, const std::string &where) {
  if (raw.size() != static_cast<size_t>(count) * sizeof(T))
    throw Error(where + ": raw_data has " + std::to_string(raw.size()) + " bytes, expected " +
                std::to_string(count * static_cast<int64_t>(sizeof(T))));
  std::vector<T> values(static_cast<size_t>(count));
  std::memcpy(values.data(), raw.data(), raw.size());
  return values;
}

template <typename T, typename Field>
std::vector<T> fromTypedField(const Field &field, int64_t count, const std::string &where,
                              const char *fieldName) {
  if (field.size() != count)
    throw Error(where + ": " + fieldName + " has " + std::to_string(field.size()) +
                " entries, expected " + std::to_string(count));
  return std::vector<T>(field.begin(), field.end());
}

std::vector<float> floatData(const onnx::TensorProto &proto, int64_t count,
                             const std::string &where) {
  if (proto.has_raw_data())
    return fromRawData<float>(proto.raw_data(), count, where);
  return fromTypedField<float>(proto.float_data(), count, where, "float_data");
}

std::vector<int64_t> int64Data(const onnx::TensorProto &proto, int64_t count,
                               const std::string &where) {
  if (proto.has_raw_data())
    return fromRawData<int64_t>(proto.raw_data(), count, where);
  return fromTypedField<int64_t>(proto.int64_data(), count, where, "int64_data");
}

std::vector<int64_t> int32Data(const onnx::TensorProto &proto, int64_t count,
                               const std::string &where) {
  if (proto.has_raw_data()) {
    std::vector<int32_t> narrow = fromRawData<int32_t>(proto.raw_data(), count, where);
    return std::vector<int64_t>(narrow.begin(), narrow.end());
  }
  return fromTypedField<int64_t>(proto.int32_data(), count, where, "int32_data");
}

} // namespace

Tensor tensorFromProto(const onnx::TensorProto &proto, const std::string &context) {
  const std::string where = tensorContext(proto, context);
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    throw Error(where + ": external data not supported");
  Tensor tensor;
  tensor.shape.assign(proto.dims().begin(), proto.dims().end());
  for (int64_t d : tensor.shape)
    if (d < 0)
      throw Error(where + ": negative dimension in dims " + shapeToString(tensor.shape));
  const int64_t count = numElements(tensor.shape);
  switch (proto.data_type()) {
  case onnx::TensorProto::FLOAT:
    tensor.dtype = DType::Float32;
    tensor.f = floatData(proto, count, where);
    break;
  case onnx::TensorProto::INT64:
    tensor.dtype = DType::Int64;
    tensor.i = int64Data(proto, count, where);
    break;
  case onnx::TensorProto::INT32:
    tensor.dtype = DType::Int64;
    tensor.i = int32Data(proto, count, where);
    break;
  default:
    throw Error(where + ": data type " +
                onnx::TensorProto::DataType_Name(
                    static_cast<onnx::TensorProto::DataType>(proto.data_type())) +
                " is not supported (only FLOAT, INT64, INT32)");
  }
  return tensor;
}

Tensor readTensorProto(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open file");
  onnx::TensorProto proto;
  if (!proto.ParseFromIstream(&in))
    throw Error(path + ": not a serialized onnx TensorProto");
  return tensorFromProto(proto, path);
}

} // namespace nasc::ir
