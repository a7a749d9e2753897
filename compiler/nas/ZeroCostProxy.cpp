#include "compiler/nas/ZeroCostProxy.h"

#include "compiler/nas/FisherPotential.h"
#include "compiler/nas/GradientProxies.h"
#include "compiler/nas/Naswot.h"
#include "compiler/nas/Synflow.h"
#include "ir/Error.h"

#include <algorithm>

namespace nasc::nas {

namespace {

ProxyScore fisherScore(const ir::Graph &graph, const ir::Tensor &images,
                       const std::vector<int64_t> &labels) {
  const FisherPotential fisher = fisherPotential(graph, images, labels);
  ProxyScore score{{}, fisher.total};
  for (const LayerFisher &layer : fisher.layers)
    score.layers.push_back({layer.conv, layer.value});
  return score;
}

} // namespace

const std::vector<std::string> &proxyNames() {
  static const std::vector<std::string> names = {"fisher", "synflow", "jacob_cov", "snip",
                                                 "grad_norm"};
  return names;
}

Proxy parseProxy(const std::string &name) {
  const std::vector<std::string> &names = proxyNames();
  auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) {
    std::string known;
    for (const std::string &n : names)
      known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown proxy '" + name + "' (known: " + known + ")");
  }
  return static_cast<Proxy>(it - names.begin());
}

ProxyScore measureProxy(Proxy proxy, const ir::Graph &graph, const ir::Tensor &images,
                        const std::vector<int64_t> &labels) {
  switch (proxy) {
  case Proxy::Fisher:
    return fisherScore(graph, images, labels);
  case Proxy::Synflow:
    return synflow(graph);
  case Proxy::JacobCov:
    return naswot(graph, images);
  case Proxy::Snip:
    return snip(graph, images, labels);
  case Proxy::GradNorm:
    return gradNorm(graph, images, labels);
  }
  throw Error("unknown proxy");
}

} // namespace nasc::nas
