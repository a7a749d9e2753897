#include "ir/import/JsonWeights.h"

#include "ir/Error.h"
#include "ir/import/JsonFields.h"
#include "ir/import/WeightInit.h"

#include <bit>
#include <filesystem>
#include <fstream>

namespace nasc::ir::json_weights {

using namespace json_fields;

static_assert(std::endian::native == std::endian::little,
              "side-file weights are read as little-endian float32");

namespace {

DType dtypeField(const Json &entry, const std::string &where) {
  if (!entry.contains("dtype"))
    return DType::Float32;
  std::string name = stringField(entry, "dtype", where);
  if (name == "float32")
    return DType::Float32;
  if (name == "int64")
    return DType::Int64;
  fail(where, "dtype", "must be \"float32\" or \"int64\", got \"" + name + "\"");
}

Tensor dataTensor(const Json &entry, const Shape &shape, DType dtype, const std::string &where) {
  const Json &data = require(entry, "data", where);
  if (!data.is_array() || static_cast<int64_t>(data.size()) != numElements(shape))
    fail(where, "data",
         "must be an array of " + std::to_string(numElements(shape)) + " numbers (shape " +
             shapeToString(shape) + ")");
  Tensor tensor;
  tensor.dtype = dtype;
  tensor.shape = shape;
  for (const Json &v : data) {
    if (dtype == DType::Int64 && !v.is_number_integer())
      fail(where, "data", "must hold integers for dtype int64");
    if (!v.is_number())
      fail(where, "data", "must hold numbers");
    if (dtype == DType::Int64)
      tensor.i.push_back(v.get<int64_t>());
    else
      tensor.f.push_back(v.get<float>());
  }
  return tensor;
}

Tensor fileTensor(const Json &entry, const Shape &shape, const std::string &specPath,
                  const std::string &where) {
  std::filesystem::path file =
      std::filesystem::path(specPath).parent_path() / stringField(entry, "file", where);
  int64_t offset = entry.contains("offset") ? intField(entry, "offset", where) : 0;
  if (offset < 0)
    fail(where, "offset", "must be a non-negative byte offset");
  std::ifstream in(file, std::ios::binary);
  if (!in)
    fail(where, "file", "cannot open '" + file.string() + "'");
  Tensor tensor = Tensor::zeros(shape);
  const auto bytes = static_cast<std::streamsize>(tensor.f.size() * sizeof(float));
  in.seekg(offset);
  in.read(reinterpret_cast<char *>(tensor.f.data()), bytes);
  if (!in || in.gcount() != bytes)
    fail(where, "file",
         "'" + file.string() + "' holds fewer than " + std::to_string(bytes) +
             " bytes after offset " + std::to_string(offset));
  return tensor;
}

Tensor generatedTensor(const Json &entry, const Shape &shape, const std::string &where) {
  std::string init = stringField(entry, "init", where);
  if (init == "zeros")
    return Tensor::zeros(shape, 0.0f);
  if (init == "ones")
    return Tensor::zeros(shape, 1.0f);
  if (init != "he_normal")
    fail(where, "init", "must be \"he_normal\", \"zeros\" or \"ones\", got \"" + init + "\"");
  int64_t seed = intField(entry, "seed", where);
  if (seed < 0)
    fail(where, "seed", "must be a non-negative integer");
  return heNormal(shape, static_cast<uint64_t>(seed));
}

} // namespace

Tensor initializerTensor(const Json &entry, const std::string &specPath, const std::string &where) {
  checkObject(entry, {"name", "shape", "dtype", "data", "file", "offset", "init", "seed"}, where);
  Shape shape = shapeField(entry, "shape", where);
  DType dtype = dtypeField(entry, where);
  const int sources = entry.contains("data") + entry.contains("file") + entry.contains("init");
  if (sources != 1)
    fail(where, "data", "exactly one of \"data\", \"file\" or \"init\" must be given");
  if (dtype == DType::Int64 && !entry.contains("data"))
    fail(where, "dtype", "int64 initializers must give \"data\"");
  if (entry.contains("data"))
    return dataTensor(entry, shape, dtype, where);
  if (entry.contains("file"))
    return fileTensor(entry, shape, specPath, where);
  return generatedTensor(entry, shape, where);
}

Tensor inlineTensor(const Json &entry, const std::string &where) {
  checkObject(entry, {"shape", "dtype", "data"}, where);
  return dataTensor(entry, shapeField(entry, "shape", where), dtypeField(entry, where), where);
}

} // namespace nasc::ir::json_weights
