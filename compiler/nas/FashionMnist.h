// One batch of Fashion-MNIST training images shaped for a model's input (Fisher Potential data).
#pragma once

#include "ir/Tensor.h"

#include <string>
#include <vector>

namespace nasc::nas {

/// Where Debian's dataset-fashion-mnist package installs the IDX files.
inline constexpr const char *kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

/// Images (N, C, H, W) and their labels.
struct ImageBatch {
  ir::Tensor images;
  std::vector<int64_t> labels;
};

/// The first N = shape[0] training images of Fashion-MNIST (train-images-idx3-ubyte.gz and
/// train-labels-idx1-ubyte.gz under `directory`, read with zlib) as `shape` (N, C, H, W): each
/// 28x28 pixel p becomes (p / 255 - 0.2860) / 0.3530 (float32 arithmetic), then the image is
/// centred in H x W: zero-padded (value 0 after normalisation) with floor((H - 28) / 2) rows
/// above, or, when H < 28, centre-cropped starting at row floor((28 - H) / 2); the same for W.
/// The image is replicated over the C channels. Labels are the dataset's (0..9) modulo `classes`.
/// Throws nasc::Error naming the path (and the Debian package) when a file is missing or
/// unreadable, for a malformed IDX header, for N > 60000 or a shape not of rank 4 / with a
/// non-positive size, and for classes < 1.
ImageBatch fashionMnistBatch(const ir::Shape &shape, int64_t classes,
                             const std::string &directory = kFashionMnistDir);

} // namespace nasc::nas
