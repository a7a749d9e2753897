#include "EigenReference.h"

#include <Eigen/Dense>

namespace nasc::test {

namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// The (C·R·S) × (OH·OW) im2col matrix of image `image`.
RowMajor im2col(const std::vector<float> &input, const ConvShape &sh, int64_t image) {
  RowMajor cols = RowMajor::Zero(sh.c * sh.r * sh.s, sh.oh() * sh.ow());
  for (int64_t c = 0; c < sh.c; ++c)
    for (int64_t r = 0; r < sh.r; ++r)
      for (int64_t s = 0; s < sh.s; ++s)
        for (int64_t y = 0; y < sh.oh(); ++y)
          for (int64_t x = 0; x < sh.ow(); ++x) {
            int64_t iy = y * sh.stride + r - sh.pad, ix = x * sh.stride + s - sh.pad;
            if (iy < 0 || iy >= sh.h || ix < 0 || ix >= sh.w)
              continue;
            cols((c * sh.r + r) * sh.s + s, y * sh.ow() + x) =
                input[((image * sh.c + c) * sh.h + iy) * sh.w + ix];
          }
  return cols;
}

} // namespace

std::vector<float> eigenGemm(const std::vector<float> &a, const std::vector<float> &b, int64_t m,
                             int64_t n, int64_t k) {
  Eigen::Map<const RowMajor> ma(a.data(), m, k), mb(b.data(), k, n);
  std::vector<float> c(static_cast<size_t>(m * n));
  Eigen::Map<RowMajor>(c.data(), m, n) = ma * mb;
  return c;
}

std::vector<float> eigenConv2dBias(const std::vector<float> &input,
                                   const std::vector<float> &weights,
                                   const std::vector<float> &bias, const ConvShape &sh) {
  Eigen::Map<const RowMajor> w(weights.data(), sh.k, sh.c * sh.r * sh.s);
  Eigen::Map<const Eigen::VectorXf> b(bias.data(), sh.k);
  int64_t plane = sh.oh() * sh.ow();
  std::vector<float> out(static_cast<size_t>(sh.n * sh.k * plane));
  for (int64_t image = 0; image < sh.n; ++image) {
    Eigen::Map<RowMajor> o(out.data() + image * sh.k * plane, sh.k, plane);
    o = w * im2col(input, sh, image);
    o.colwise() += b;
  }
  return out;
}

std::vector<float> eigenGlobalMax(const std::vector<float> &x, int64_t n, int64_t c, int64_t h,
                                  int64_t w) {
  Eigen::Map<const RowMajor> planes(x.data(), n * c, h * w);
  Eigen::VectorXf maxima = planes.rowwise().maxCoeff();
  return std::vector<float>(maxima.data(), maxima.data() + maxima.size());
}

} // namespace nasc::test
