#include "compiler/nas/FashionMnist.h"

#include "ir/Error.h"

#include <algorithm>
#include <filesystem>
#include <zlib.h>

namespace nasc::nas {

namespace {

constexpr int64_t kSide = 28;

/// The first `count` data bytes of the gzipped IDX file `path` after checking its header: magic
/// 0x0000080`rank` (unsigned bytes), then `rank` big-endian dimension sizes.
std::vector<unsigned char> readIdx(const std::string &path, int rank, int64_t count) {
  if (!std::filesystem::exists(path))
    throw Error(path + ": Fashion-MNIST file not found (install Debian's "
                       "dataset-fashion-mnist)");
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file)
    throw Error(path + ": cannot open Fashion-MNIST file");
  std::vector<unsigned char> header(4 * (rank + 1));
  std::vector<unsigned char> data(static_cast<size_t>(count));
  const bool headerRead = gzread(file, header.data(), static_cast<unsigned>(header.size())) ==
                          static_cast<int>(header.size());
  const bool dataRead =
      headerRead && gzread(file, data.data(), static_cast<unsigned>(data.size())) ==
                        static_cast<int>(data.size());
  gzclose(file);
  if (!headerRead || header[0] != 0 || header[1] != 0 || header[2] != 8 || header[3] != rank)
    throw Error(path + ": not an IDX file of unsigned bytes with " + std::to_string(rank) +
                " dimensions");
  if (!dataRead)
    throw Error(path + ": file holds fewer than the " + std::to_string(count) + " bytes requested");
  return data;
}

/// Source coordinate offset: output index o reads source index o - offset(size).
int64_t centreOffset(int64_t size) {
  return size >= kSide ? (size - kSide) / 2 : -((kSide - size) / 2);
}

} // namespace

ImageBatch fashionMnistBatch(const ir::Shape &shape, int64_t classes,
                             const std::string &directory) {
  if (shape.size() != 4 || *std::min_element(shape.begin(), shape.end()) <= 0)
    throw Error("Fashion-MNIST batch: shape " + ir::shapeToString(shape) +
                " must be N x C x H x W with positive sizes");
  const int64_t batch = shape[0], channels = shape[1], height = shape[2], width = shape[3];
  if (batch > 60000)
    throw Error("Fashion-MNIST batch: " + std::to_string(batch) +
                " images requested, the training set has 60000");
  if (classes < 1)
    throw Error("Fashion-MNIST batch: class count must be positive");
  const std::vector<unsigned char> pixels =
      readIdx(directory + "/train-images-idx3-ubyte.gz", 3, batch * kSide * kSide);
  const std::vector<unsigned char> labels =
      readIdx(directory + "/train-labels-idx1-ubyte.gz", 1, batch);
  ImageBatch result{ir::Tensor::zeros(shape), {}};
  const int64_t top = centreOffset(height), left = centreOffset(width);
  for (int64_t n = 0; n < batch; ++n) {
    result.labels.push_back(labels[n] % classes);
    for (int64_t y = 0; y < height; ++y)
      for (int64_t x = 0; x < width; ++x) {
        const int64_t sy = y - top, sx = x - left;
        if (sy < 0 || sy >= kSide || sx < 0 || sx >= kSide)
          continue;
        const float p = static_cast<float>(pixels[(n * kSide + sy) * kSide + sx]);
        const float value = (p / 255.0f - 0.2860f) / 0.3530f;
        for (int64_t c = 0; c < channels; ++c)
          result.images.f[((n * channels + c) * height + y) * width + x] = value;
      }
  }
  return result;
}

} // namespace nasc::nas
