#include "compiler/search/CostModel.h"

#include "ir/Error.h"

#include <xgboost/c_api.h>

#include <cmath>
#include <string>
#include <utility>

namespace nasc::search {

namespace {

/// Throws nasc::Error with XGBoost's message when a call of its C API returned failure.
void check(int status, const char *call) {
  if (status != 0)
    throw Error(std::string("cost model: XGBoost ") + call + ": " + XGBGetLastError());
}

struct FreeMatrix {
  void operator()(void *matrix) const { XGDMatrixFree(matrix); }
};
using Matrix = std::unique_ptr<void, FreeMatrix>;

/// `rows` as an XGBoost matrix of `width` columns, NaN missing. Throws nasc::Error naming the
/// first row of another width.
Matrix toMatrix(const std::vector<std::vector<float>> &rows, size_t width) {
  std::vector<float> dense;
  dense.reserve(rows.size() * width);
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != width)
      throw Error("cost model: row " + std::to_string(r) + " has " +
                  std::to_string(rows[r].size()) + " features, not " + std::to_string(width));
    dense.insert(dense.end(), rows[r].begin(), rows[r].end());
  }
  DMatrixHandle handle = nullptr;
  check(XGDMatrixCreateFromMat(dense.data(), rows.size(), width, NAN, &handle),
        "XGDMatrixCreateFromMat");
  return Matrix(handle);
}

/// The booster parameters: the objective, `options`, and what makes the fit deterministic.
std::vector<std::pair<std::string, std::string>> parameters(Objective objective,
                                                            const CostModelOptions &options) {
  return {
      {"objective", objective == Objective::Regression ? "reg:squarederror" : "binary:logistic"},
      {"max_depth", std::to_string(options.maxDepth)},
      {"eta", std::to_string(options.eta)},
      {"min_child_weight", std::to_string(options.minChildWeight)},
      {"tree_method", "hist"},
      {"nthread", "1"},
      {"seed", "0"},
      {"verbosity", "0"}};
}

} // namespace

void CostModel::FreeBooster::operator()(void *booster) const { XGBoosterFree(booster); }

CostModel::CostModel(Objective objective, const std::vector<std::vector<float>> &rows,
                     const std::vector<float> &targets, const CostModelOptions &options) {
  if (rows.empty() || rows.size() != targets.size())
    throw Error("cost model: fitted on " + std::to_string(rows.size()) + " rows and " +
                std::to_string(targets.size()) + " targets (at least one row, one target each)");
  width_ = rows.front().size();
  if (width_ == 0)
    throw Error("cost model: rows without features");
  const Matrix train = toMatrix(rows, width_);
  check(XGDMatrixSetFloatInfo(train.get(), "label", targets.data(), targets.size()),
        "XGDMatrixSetFloatInfo");
  DMatrixHandle matrices[] = {train.get()};
  BoosterHandle handle = nullptr;
  check(XGBoosterCreate(matrices, 1, &handle), "XGBoosterCreate");
  booster_.reset(handle);
  for (const auto &[name, value] : parameters(objective, options))
    check(XGBoosterSetParam(handle, name.c_str(), value.c_str()), "XGBoosterSetParam");
  for (int round = 0; round < options.rounds; ++round)
    check(XGBoosterUpdateOneIter(handle, round, train.get()), "XGBoosterUpdateOneIter");
}

std::vector<float> CostModel::predict(const std::vector<std::vector<float>> &rows) const {
  if (rows.empty())
    return {};
  const Matrix matrix = toMatrix(rows, width_);
  const char *config = R"({"type": 0, "training": false, "iteration_begin": 0,
                           "iteration_end": 0, "strict_shape": false})";
  const bst_ulong *shape = nullptr;
  bst_ulong dims = 0;
  const float *values = nullptr;
  check(XGBoosterPredictFromDMatrix(booster_.get(), matrix.get(), config, &shape, &dims, &values),
        "XGBoosterPredictFromDMatrix");
  if (dims != 1 || shape[0] != rows.size())
    throw Error("cost model: XGBoost predicted " + std::to_string(dims) + "-d values for " +
                std::to_string(rows.size()) + " rows");
  return {values, values + rows.size()};
}

} // namespace nasc::search
