#include "compiler/nas/SynflowScaling.h"

#include "ir/Error.h"
#include "ir/ops/OpDef.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

namespace nasc::nas {

namespace {

constexpr double kNoTerm = -std::numeric_limits<double>::infinity();

/// ln(e^a + e^b), either may be kNoTerm.
double logAdd(double a, double b) {
  if (a == kNoTerm || b == kNoTerm)
    return std::max(a, b);
  const double top = std::max(a, b);
  return top + std::log1p(std::exp(std::min(a, b) - top));
}

/// ln of x, kNoTerm for x <= 0.
double logOf(double x) { return x > 0 ? std::log(x) : kNoTerm; }

/// The largest |entry| of `t`.
double maxOf(const ir::Tensor &t) {
  double top = 0;
  for (float v : t.f)
    top = std::max(top, static_cast<double>(std::fabs(v)));
  return top;
}

/// The largest sum of |w| (rows x cols, row-major) over one row, or over one column with
/// `columns`.
double largestSum(const ir::Tensor &w, int64_t rows, bool columns) {
  const int64_t cols = rows ? w.size() / rows : 0;
  std::vector<double> sums(columns ? cols : rows, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = w.f.data() + r * cols;
    if (columns)
      for (int64_t c = 0; c < cols; ++c)
        sums[c] += std::fabs(row[c]);
    else
      sums[r] = std::accumulate(row, row + cols, 0.0,
                                [](double sum, float v) { return sum + std::fabs(v); });
  }
  return sums.empty() ? 0 : *std::max_element(sums.begin(), sums.end());
}

/// |t| times e^logFactor (int64 tensors copied).
ir::Tensor scaled(const ir::Tensor &t, double logFactor) {
  ir::Tensor copy = t;
  const double factor = std::exp(logFactor);
  for (float &v : copy.f)
    v = static_cast<float>(std::fabs(v) * factor);
  return copy;
}

/// Builds the ScaledGraph of one network, node by node (scaleForSynflow).
class Scaler {
public:
  explicit Scaler(const ir::Graph &net) : net_(net) {
    out_.graph.name = net.name;
    out_.graph.source = net.source;
    out_.graph.inputs = net.inputs;
    out_.graph.outputs = net.outputs;
    out_.graph.values = net.values;
    for (const ir::Node &node : net.nodes)
      for (const std::string &input : node.inputs)
        ++uses_[input];
  }

  ScaledGraph run() {
    for (const ir::Node &node : net_.nodes)
      scaleNode(node);
    out_.logOutputScale = logScale(net_.outputs.at(0));
    return std::move(out_);
  }

private:
  const ir::Graph &net_;
  ScaledGraph out_;
  std::map<std::string, int> uses_;
  std::map<std::string, double> logScales_;
  /// Per value, a bound of each channel's (dim 1's) largest entry relative to its λ (at most 1);
  /// absent: every channel at λ.
  std::map<std::string, std::vector<double>> profiles_;

  /// The channel count (dim 1, 1 for rank < 2) of `value`; 0 when its shape is unknown.
  int64_t channelsOf(const std::string &value) const {
    if (!net_.values.count(value) || net_.shapeOf(value).empty())
      return 0;
    const ir::Shape &shape = net_.shapeOf(value);
    return shape.size() < 2 ? 1 : shape[1];
  }

  /// The profile of `value` with `channels` entries: its recorded one (a single entry broadcast),
  /// all 1 when none fits.
  std::vector<double> profileOf(const std::string &value, int64_t channels) const {
    auto it = profiles_.find(value);
    if (it != profiles_.end() && static_cast<int64_t>(it->second.size()) == channels)
      return it->second;
    if (it != profiles_.end() && it->second.size() == 1)
      return std::vector<double>(static_cast<size_t>(channels), it->second[0]);
    return std::vector<double>(static_cast<size_t>(std::max<int64_t>(channels, 0)), 1.0);
  }

  /// Records ln λ of `value` as the largest of the per-channel ln bounds `logs` (kNoTerm when
  /// empty or all kNoTerm: `fallback`) and its profile relative to it; returns ln λ.
  double record(const std::string &value, const std::vector<double> &logs, double fallback) {
    double y = kNoTerm;
    for (double l : logs)
      y = std::max(y, l);
    if (y == kNoTerm) {
      logScales_[value] = fallback;
      profiles_[value] = std::vector<double>(logs.size(), 0.0);
      return fallback;
    }
    std::vector<double> profile;
    for (double l : logs)
      profile.push_back(l == kNoTerm ? 0.0 : std::exp(l - y));
    logScales_[value] = y;
    profiles_[value] = std::move(profile);
    return y;
  }

  /// Passes input 0's profile to output 0 when both have the same channels (per-channel ops),
  /// or repeats each channel's bound over the positions a Flatten / Reshape of (1, C, ...) to
  /// (1, C·positions) lays out channel-major.
  void passProfile(const ir::Node &node) {
    const std::string &in = node.inputs.at(0), &out = node.outputs.at(0);
    const int64_t c = channelsOf(in), k = channelsOf(out);
    if (!profiles_.count(in) || c <= 0 || k <= 0)
      return;
    static const std::set<std::string> perChannel = {
        "Relu",          "MaxPool",  "AveragePool", "GlobalAveragePool",
        "GlobalMaxPool", "Identity", "Dropout",     "Resize"};
    const bool flat = node.op_type == "Flatten" || node.op_type == "Reshape";
    if (perChannel.count(node.op_type) && c == k)
      profiles_[out] = profileOf(in, c);
    else if (flat && net_.shapeOf(out).size() == 2 && k % c == 0 &&
             k == ir::numElements(net_.shapeOf(in)) / std::max<int64_t>(net_.shapeOf(in)[0], 1)) {
      const std::vector<double> p = profileOf(in, c);
      std::vector<double> repeated;
      for (double v : p)
        repeated.insert(repeated.end(), static_cast<size_t>(k / c), v);
      profiles_[out] = std::move(repeated);
    }
  }

  [[noreturn]] void fail(const ir::Node &node, const std::string &why) const {
    throw Error(net_.source + ": synflow: " + node.describe() + ": " + why);
  }

  double logScale(const std::string &value) const {
    auto it = logScales_.find(value);
    return it == logScales_.end() ? 0.0 : it->second;
  }

  bool isInitializer(const std::string &value) const { return net_.isInitializer(value); }

  /// Appends `node` to the copy with the initializers it reads that the copy does not hold yet
  /// (their absolute values).
  void push(ir::Node node) {
    for (const std::string &input : node.inputs)
      if (isInitializer(input) && !out_.graph.initializers.count(input))
        out_.graph.initializers[input] = scaled(net_.initializers.at(input), 0.0);
    out_.graph.nodes.push_back(std::move(node));
  }

  const ir::Tensor &weight(const ir::Node &node, size_t k) const {
    if (node.inputs.size() <= k || !isInitializer(node.inputs[k]))
      fail(node, "input " + std::to_string(k) + " must be an initializer");
    return net_.initializers.at(node.inputs[k]);
  }

  /// Replaces input k of `node` (an initializer, when present) by a copy times e^logFactor.
  void scaleInitializer(ir::Node &node, size_t k, double logFactor) {
    if (node.inputs.size() <= k || node.inputs[k].empty())
      return;
    const std::string name = "synflow_scale:" + node.outputs.at(0) + ":" + std::to_string(k);
    out_.graph.initializers[name] = scaled(weight(node, k), logFactor);
    node.inputs[k] = name;
  }

  /// Conv or Gemm: the weight at input 1 scaled in place, the bias at input 2 copied; `logs` the
  /// ln bound of each output channel (ln(λ_X · gain_k + bias_k)).
  void scaleLinear(const ir::Node &node, const std::vector<double> &logs) {
    if (uses_.at(node.inputs[1]) > 1)
      fail(node, "its weight '" + node.inputs[1] + "' is shared by several nodes");
    const double in = logScale(node.inputs[0]);
    const double y = record(node.outputs[0], logs, in);
    ir::Node copy = node;
    if (node.op_type == "Conv")
      out_.graph.initializers[node.inputs[1]] = scaled(weight(node, 1), in - y);
    else
      scaleInitializer(copy, 1, in - y);
    scaleInitializer(copy, 2, -y);
    push(std::move(copy));
  }

  /// Per output channel k of a Conv: ln(λ_X Σ_{c,r,s} |W[k,c,r,s]| p_c + |B_k|), p the input's
  /// profile over the channels of k's group.
  void conv(const ir::Node &node) {
    const ir::Tensor &w = weight(node, 1);
    const bool biased = node.inputs.size() > 2 && !node.inputs[2].empty();
    const int64_t outChannels = w.shape.at(0), groups = node.getInt("group", 1);
    const int64_t perGroupIn = w.shape.size() > 1 ? w.shape[1] : 1;
    const int64_t window = outChannels ? w.size() / (outChannels * perGroupIn) : 0;
    const std::vector<double> p = profileOf(node.inputs[0], perGroupIn * groups);
    const double in = logScale(node.inputs[0]);
    std::vector<double> logs;
    for (int64_t k = 0; k < outChannels; ++k) {
      const int64_t first = (k / std::max<int64_t>(outChannels / groups, 1)) * perGroupIn;
      double gain = 0;
      for (int64_t c = 0; c < perGroupIn; ++c) {
        const float *row = w.f.data() + (k * perGroupIn + c) * window;
        const double weights = std::accumulate(
            row, row + window, 0.0, [](double sum, float v) { return sum + std::fabs(v); });
        gain += weights * p.at(static_cast<size_t>(first + c));
      }
      const double bias = biased ? std::fabs(weight(node, 2).f.at(static_cast<size_t>(k))) : 0.0;
      logs.push_back(logAdd(in + logOf(gain), logOf(bias)));
    }
    scaleLinear(node, logs);
  }

  void gemm(const ir::Node &node) {
    const ir::Tensor &b = weight(node, 1);
    if (b.shape.size() != 2)
      fail(node, "B must be a matrix");
    const bool transB = node.getInt("transB", 0) != 0;
    const double gain = node.getFloat("alpha", 1.0f) * largestSum(b, b.shape[0], !transB);
    const double bias = node.inputs.size() > 2 && !node.inputs[2].empty()
                            ? node.getFloat("beta", 1.0f) * maxOf(weight(node, 2))
                            : 0.0;
    scaleLinear(node, {logAdd(logScale(node.inputs[0]) + logOf(gain), logOf(bias))});
  }

  /// Input `value` times e^logFactor: Reshape to (1, 1, 1, n), 1x1 Conv, Reshape back.
  std::string multiply(const std::string &value, double logFactor, const ir::Node &node) {
    if (!net_.values.count(value) || net_.shapeOf(value).empty())
      fail(node, "input '" + value + "' has no known shape of rank >= 1");
    ir::Shape back = net_.shapeOf(value);
    back[0] = 1;
    const std::string prefix = "synflow_scale:" + value + ":" + node.outputs.at(0);
    auto &inits = out_.graph.initializers;
    inits[prefix + ":flat"] = ir::Tensor{ir::DType::Int64, {4}, {}, {1, 1, 1, -1}};
    inits[prefix + ":back"] =
        ir::Tensor{ir::DType::Int64, {static_cast<int64_t>(back.size())}, {}, back};
    inits[prefix + ":w"] = ir::Tensor::zeros({1, 1, 1, 1}, static_cast<float>(std::exp(logFactor)));
    auto &nodes = out_.graph.nodes;
    nodes.push_back({prefix + ":0", "Reshape", {value, prefix + ":flat"}, {prefix + ":0"}, {}});
    nodes.push_back({prefix + ":1",
                     "Conv",
                     {prefix + ":0", prefix + ":w"},
                     {prefix + ":1"},
                     {{"kernel_shape", std::vector<int64_t>{1, 1}}}});
    nodes.push_back({prefix, "Reshape", {prefix + ":1", prefix + ":back"}, {prefix}, {}});
    return prefix;
  }

  /// Add or Concat: every operand brought to the output's scale. Add: each channel's bound the
  /// sum of the operands' (λ_v p_v,c; an operand of another rank, which broadcasts along other
  /// axes, or an initializer at λ_v in every channel); Concat along the channels: the operands'
  /// profiles one after the other; λ_Y the largest channel bound (along another axis: the largest
  /// λ_v, every channel at it).
  void join(const ir::Node &node, bool sum) {
    std::vector<double> logs;
    for (const std::string &input : node.inputs)
      logs.push_back(isInitializer(input) ? logOf(maxOf(net_.initializers.at(input)))
                                          : logScale(input));
    const int64_t channels = channelsOf(node.outputs.at(0));
    std::vector<double> bounds;
    if (sum && channels > 0) {
      bounds.assign(static_cast<size_t>(channels), kNoTerm);
      for (size_t k = 0; k < node.inputs.size(); ++k) {
        const bool aligned =
            !isInitializer(node.inputs[k]) && net_.values.count(node.inputs[k]) &&
            net_.shapeOf(node.inputs[k]).size() == net_.shapeOf(node.outputs[0]).size();
        const std::vector<double> p =
            aligned ? profileOf(node.inputs[k], channels) : std::vector<double>(bounds.size(), 1.0);
        for (size_t c = 0; c < bounds.size(); ++c)
          bounds[c] = logAdd(bounds[c], logs[k] + logOf(p[c]));
      }
    } else if (!sum && channels > 0 &&
               (node.getInt("axis", 0) == 1 ||
                node.getInt("axis", 0) +
                        static_cast<int64_t>(net_.shapeOf(node.outputs[0]).size()) ==
                    1))
      for (size_t k = 0; k < node.inputs.size(); ++k)
        for (double v : profileOf(node.inputs[k], channelsOf(node.inputs[k])))
          bounds.push_back(logs[k] + logOf(v));
    if (static_cast<int64_t>(bounds.size()) != channels || channels <= 0) {
      double top = kNoTerm;
      for (double l : logs)
        top = sum ? logAdd(top, l) : std::max(top, l);
      bounds.assign(1, top);
    }
    const double y = record(node.outputs.at(0), bounds, 0.0);
    ir::Node copy = node;
    for (size_t k = 0; k < node.inputs.size(); ++k)
      if (isInitializer(node.inputs[k]))
        scaleInitializer(copy, k, -y);
      else if (logs[k] != y)
        copy.inputs[k] = multiply(node.inputs[k], logs[k] - y, node);
    push(std::move(copy));
  }

  void scaleNode(const ir::Node &node) {
    if (node.op_type == "Conv")
      conv(node);
    else if (node.op_type == "Gemm")
      gemm(node);
    else if (node.op_type == "Add" || node.op_type == "Concat")
      join(node, node.op_type == "Add");
    else if (node.op_type == "BatchNormalization") {
      logScales_[node.outputs.at(0)] = logScale(node.inputs.at(0));
      if (profiles_.count(node.inputs.at(0)))
        profiles_[node.outputs.at(0)] = profiles_.at(node.inputs.at(0));
      push({node.name, "Identity", {node.inputs.at(0)}, {node.outputs.at(0)}, {}});
    } else if (ir::opHas(node.op_type, &ir::OpDef::homogeneous)) {
      logScales_[node.outputs.at(0)] = logScale(node.inputs.at(0));
      passProfile(node);
      push(node);
    } else if (node.op_type == "Constant")
      push(node);
    else
      fail(node, "op '" + node.op_type + "' has no scaling rule");
  }
};

} // namespace

ScaledGraph scaleForSynflow(const ir::Graph &net) { return Scaler(net).run(); }

} // namespace nasc::nas
