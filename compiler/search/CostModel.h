// A cost model fitted on a search's measurements: gradient-boosted trees of XGBoost (Chen and
// Guestrin, KDD 2016; Debian's libxgboost-dev, its C API) over fixed-length rows of features.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace nasc::search {

/// What a CostModel predicts.
enum class Objective {
  Regression,    ///< `reg:squarederror`: the target itself.
  Classification ///< `binary:logistic`: the probability that the target is 1 (targets 0 or 1).
};

/// The boosting parameters of a CostModel. The defaults fit 300 candidates of CIFAR ResNet-18
/// (336 features, CandidateFeatures.h) in a few tens of milliseconds of CPU.
struct CostModelOptions {
  int rounds = 40;  ///< Boosting rounds (trees).
  int maxDepth = 4; ///< Of each tree.
  double eta = 0.3; ///< Learning rate (shrinkage of each tree).
  /// XGBoost's min_child_weight, the least hessian sum of a leaf: a squared-error row weighs 1,
  /// a logistic one p(1 − p) <= 0.25, so XGBoost's default 1 keeps a classifier fitted on a
  /// search's first ten candidates from making any split.
  double minChildWeight = 0.1;
};

/// Gradient-boosted trees fitted once, at construction, on rows of features; then predicts
/// rows of the same width. Deterministic: one thread, XGBoost's histogram method (256 bins; a
/// feature with fewer distinct values is split only at them), no row or column sampling, seed
/// 0, so the same rows give the same model and predictions. Not copyable (it owns an XGBoost
/// booster handle); movable.
class CostModel {
public:
  /// Fits `objective` on `rows` (n rows of the same width d >= 1; NaN is a missing value) and
  /// `targets` (n values; 0 or 1 for Classification). Throws nasc::Error when there are no rows,
  /// the rows differ in width or the counts differ, and with XGBGetLastError's text when
  /// XGBoost fails.
  CostModel(Objective objective, const std::vector<std::vector<float>> &rows,
            const std::vector<float> &targets, const CostModelOptions &options = {});

  /// One prediction per row of `rows` (width d, as fitted): the target (Regression) or the
  /// probability of 1 (Classification). Throws nasc::Error when a row's width is not d, and
  /// with XGBGetLastError's text when XGBoost fails.
  std::vector<float> predict(const std::vector<std::vector<float>> &rows) const;

private:
  struct FreeBooster {
    void operator()(void *booster) const;
  };
  std::unique_ptr<void, FreeBooster> booster_;
  size_t width_ = 0;
};

} // namespace nasc::search
