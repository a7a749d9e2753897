#include "ir/ops/reference/Broadcast.h"

#include <algorithm>

namespace nasc::ir::reference {

std::optional<ir::Shape> broadcastShapes(const ir::Shape &a, const ir::Shape &b) {
  const size_t rank = std::max(a.size(), b.size());
  ir::Shape result(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t da = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    const int64_t db = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    result[k] = da == 1 ? db : da;
  }
  return result;
}

std::vector<float> broadcastTo(const ir::Tensor &tensor, const ir::Shape &shape) {
  if (tensor.shape == shape)
    return tensor.f;
  const size_t rank = shape.size(), shift = rank - tensor.shape.size();
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t k = rank; k-- > shift;) {
    const int64_t dim = tensor.shape[k - shift];
    strides[k] = dim == 1 ? 0 : stride;
    stride *= dim;
  }
  std::vector<float> result(static_cast<size_t>(ir::numElements(shape)));
  std::vector<int64_t> index(rank, 0);
  int64_t source = 0;
  for (float &value : result) {
    value = tensor.f[static_cast<size_t>(source)];
    for (size_t k = rank; k-- > 0;) {
      source += strides[k];
      if (++index[k] < shape[k])
        break;
      source -= strides[k] * shape[k];
      index[k] = 0;
    }
  }
  return result;
}

} // namespace nasc::ir::reference
