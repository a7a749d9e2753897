// The zero-cost proxies of `nasc fisher --proxy` (docs/capacity.md): one result shape for all, a
// value per Conv layer and a total.
#pragma once

#include "ir/Graph.h"

#include <string>
#include <vector>

namespace nasc::nas {

/// A proxy's value for one Conv node.
struct LayerScore {
  std::string conv; ///< Name of the Conv node's output value (the layer's key).
  double value = 0; ///< For synflow its natural log, ln S_l (−infinity for S_l = 0).
};

/// Per-layer values in the order of the Conv nodes in the graph (empty for whole-network proxies
/// such as jacob_cov) and the network's value. synflow's values are natural logs (ln S_l and
/// ln Σ_l S_l, Synflow.h), since S grows like the product of the layers' weight sums and leaves
/// the double range on deep networks; jacob_cov's is log|det K|; the others are linear.
struct ProxyScore {
  std::vector<LayerScore> layers;
  double total = 0;
};

enum class Proxy { Fisher, Synflow, JacobCov, Snip, GradNorm };

/// The CLI names, in the order of Proxy: fisher, synflow, jacob_cov, snip, grad_norm.
const std::vector<std::string> &proxyNames();

/// The proxy called `name` (one of proxyNames()); throws nasc::Error listing the names otherwise.
Proxy parseProxy(const std::string &name);

/// `proxy` of `graph` on `images` (N, C, H, W) with `labels` (N entries): fisherPotential, snip,
/// gradNorm, naswot (jacob_cov; labels unused) or synflow (images used for nothing but the shape
/// check of the others; it builds its own all-ones input). Throws what the proxy throws.
ProxyScore measureProxy(Proxy proxy, const ir::Graph &graph, const ir::Tensor &images,
                        const std::vector<int64_t> &labels);

} // namespace nasc::nas
