#include "compiler/nas/Naswot.h"

#include "ir/Error.h"
#include "runtime/reference/Training.h"

#include <Eigen/Core>
#include <Eigen/LU>

#include <algorithm>
#include <cmath>

namespace nasc::nas {

namespace {

/// Adds c c^T + (1 - c)(1 - c)^T of the codes c = (y > 0) of `y` (N, D) to `kernel`, computed
/// as 2 c c^T + D - s_n - s_m (s: count of positive units per image), over blocks of columns so
/// that the codes of a large activation need little memory.
void addCodes(const ir::Tensor &y, Eigen::MatrixXd &kernel) {
  constexpr int64_t kBlock = 8192;
  const int64_t batch = y.shape.at(0), units = y.size() / batch;
  Eigen::VectorXd positives = Eigen::VectorXd::Zero(batch);
  for (int64_t begin = 0; begin < units; begin += kBlock) {
    const int64_t width = std::min(kBlock, units - begin);
    Eigen::MatrixXd codes(batch, width);
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t i = 0; i < width; ++i)
        codes(n, i) = y.f[n * units + begin + i] > 0.0f ? 1.0 : 0.0;
    positives += codes.rowwise().sum();
    kernel.noalias() += 2.0 * codes * codes.transpose();
  }
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t m = 0; m < batch; ++m)
      kernel(n, m) += static_cast<double>(units) - positives(n) - positives(m);
}

double logAbsDet(const Eigen::MatrixXd &kernel) {
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(kernel);
  double sum = 0;
  for (Eigen::Index i = 0; i < kernel.rows(); ++i)
    sum += std::log(std::fabs(lu.matrixLU()(i, i)));
  return sum;
}

} // namespace

ProxyScore naswot(const ir::Graph &graph, const ir::Tensor &images) {
  if (graph.inputs.size() != 1)
    throw Error(graph.source + ": jacob_cov needs exactly one graph input, got " +
                std::to_string(graph.inputs.size()));
  const std::map<std::string, ir::Tensor> values =
      runtime::runTrainingForward(graph, {{graph.inputs[0], images}});
  const Eigen::Index batch = images.shape.at(0);
  Eigen::MatrixXd kernel = Eigen::MatrixXd::Zero(batch, batch);
  bool anyRelu = false;
  for (const ir::Node &node : graph.nodes)
    if (node.op_type == "Relu") {
      addCodes(values.at(node.outputs.at(0)), kernel);
      anyRelu = true;
    }
  if (!anyRelu)
    throw Error(graph.source + ": jacob_cov (NASWOT) needs at least one Relu");
  return {{}, logAbsDet(kernel)};
}

} // namespace nasc::nas
