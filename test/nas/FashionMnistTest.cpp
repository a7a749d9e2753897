// The Fashion-MNIST batch: known first samples, padding / cropping geometry, errors.
#include "compiler/nas/FashionMnist.h"
#include "ir/Error.h"

#include <catch2/catch.hpp>

namespace {

using namespace nasc;
using Catch::Matchers::Contains;

float at(const ir::Tensor &t, int64_t n, int64_t c, int64_t y, int64_t x) {
  return t.f[((n * t.shape[1] + c) * t.shape[2] + y) * t.shape[3] + x];
}

} // namespace

TEST_CASE("Fashion-MNIST batch: labels, normalisation, centring and channels", "[nas][data]") {
  // The first training labels of Fashion-MNIST are 9 (ankle boot), 0, 0, 3.
  const nas::ImageBatch padded = nas::fashionMnistBatch({4, 3, 32, 32}, 10);
  CHECK(padded.labels == std::vector<int64_t>{9, 0, 0, 3});
  CHECK(nas::fashionMnistBatch({4, 1, 28, 28}, 7).labels == std::vector<int64_t>{2, 0, 0, 3});
  const float background = (0.0f - 0.2860f) / 0.3530f;
  CHECK(at(padded.images, 0, 0, 0, 0) == 0.0f);
  CHECK(at(padded.images, 0, 0, 2, 2) == background);
  CHECK(at(padded.images, 0, 0, 29, 29) == background);
  CHECK(at(padded.images, 0, 0, 30, 30) == 0.0f);
  float brightest = -10;
  for (float v : padded.images.f) {
    CHECK(v >= background);
    brightest = std::max(brightest, v);
  }
  CHECK(brightest == (1.0f - 0.2860f) / 0.3530f);
  for (int64_t y = 0; y < 32; ++y)
    for (int64_t x = 0; x < 32; ++x)
      REQUIRE(at(padded.images, 3, 2, y, x) == at(padded.images, 3, 0, y, x));
  // 20 x 25: crop rows 4..23 and columns 1..25 (offsets floor(8/2), floor(3/2)); the padded image
  // has the source pixel (sy, sx) at (sy + 2, sx + 2).
  const nas::ImageBatch cropped = nas::fashionMnistBatch({4, 1, 20, 25}, 10);
  for (int64_t y = 0; y < 20; ++y)
    for (int64_t x = 0; x < 25; ++x)
      REQUIRE(at(cropped.images, 1, 0, y, x) == at(padded.images, 1, 0, y + 6, x + 3));
}

TEST_CASE("Fashion-MNIST batch errors name the file and the Debian package", "[nas][data]") {
  CHECK_THROWS_WITH(nas::fashionMnistBatch({2, 1, 28, 28}, 10, "/nonexistent"),
                    Contains("/nonexistent/train-images-idx3-ubyte.gz") &&
                        Contains("dataset-fashion-mnist"));
  CHECK_THROWS_WITH(nas::fashionMnistBatch({60001, 1, 28, 28}, 10), Contains("60000"));
  CHECK_THROWS_WITH(nas::fashionMnistBatch({2, 28, 28}, 10), Contains("N x C x H x W"));
}
