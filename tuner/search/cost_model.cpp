// The ensemble of boosted trees behind the model-guided search, through XGBoost's C API.
#include "tuner/search/cost_model.h"

#include <xgboost/c_api.h>

#include <cmath>
#include <string>

#include "support/error.h"

namespace mdh::tuner {
namespace {

// XGBoost reports failures through a status code and a message kept per thread.
void check(int status, const char* call) {
  if (status != 0) internal_error(__FILE__, __LINE__, std::string(call) + ": " + XGBGetLastError());
}

// Frees a DMatrix however the scope ends.
struct Matrix {
  DMatrixHandle handle = nullptr;
  Matrix(const std::vector<float>& rows, size_t features) {
    check(XGDMatrixCreateFromMat(rows.data(), rows.size() / features, features, NAN, &handle),
          "XGDMatrixCreateFromMat");
  }
  ~Matrix() { XGDMatrixFree(handle); }
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
};

// Small trees, as the data are tens to thousands of measurements: depth 6 still separates the few parameters that
// matter (TVM's XGBoost cost model uses the same depth), eta 0.3 with ~30 rounds fits without tuning the rounds.
// One thread and a fixed seed: XGBoost is then deterministic (checked by CostModel.IsDeterministic).
constexpr const char* kBoosterParameters[][2] = {
    {"objective", "reg:squarederror"},
    {"booster", "gbtree"},
    {"tree_method", "hist"},
    {"max_depth", "6"},
    {"eta", "0.3"},
    {"min_child_weight", "1"},
    {"lambda", "1"},
    {"base_score", "0"},
    {"nthread", "1"},
    {"seed", "0"},
    {"verbosity", "0"},
};

}  // namespace

CostModel::CostModel(size_t members, int rounds) : members_(members), rounds_(rounds) {
  MDH_INTERNAL_ASSERT(members_ >= 1 && rounds_ >= 1, "a cost model needs a member and a round");
}

CostModel::~CostModel() {
  release();
}

void CostModel::release() {
  for (void* booster : boosters_) XGBoosterFree(booster);
  boosters_.clear();
}

void CostModel::fit(const std::vector<float>& rows, size_t features, const std::vector<float>& targets, Rng& rng) {
  MDH_INTERNAL_ASSERT(features >= 1 && !targets.empty() && rows.size() == targets.size() * features,
                      "cost model data of inconsistent shape");
  release();
  features_ = features;
  // Standardised targets, so that base_score 0 and the fixed eta suit any scale of cost.
  double mean = 0, square = 0;
  for (float t : targets) mean += t;
  mean /= static_cast<double>(targets.size());
  for (float t : targets) square += (t - mean) * (t - mean);
  const double deviation = std::sqrt(square / static_cast<double>(targets.size()));
  offset_ = mean;
  scale_ = deviation > 1e-12 ? deviation : 1.0;
  std::vector<float> standardised;
  standardised.reserve(targets.size());
  for (float t : targets) standardised.push_back(static_cast<float>((t - offset_) / scale_));

  Matrix data(rows, features);
  check(XGDMatrixSetFloatInfo(data.handle, "label", standardised.data(), standardised.size()), "XGDMatrixSetFloatInfo");
  const size_t n = targets.size();
  for (size_t m = 0; m < members_; ++m) {
    // Bootstrap: n draws with replacement, as integer weights. The first member sees the data as they are, so a
    // single-member model is the plain fit.
    std::vector<float> weights(n, m == 0 ? 1.0f : 0.0f);
    if (m > 0)
      for (size_t k = 0; k < n; ++k) weights[rng.below(n)] += 1;
    check(XGDMatrixSetFloatInfo(data.handle, "weight", weights.data(), n), "XGDMatrixSetFloatInfo");
    BoosterHandle booster = nullptr;
    check(XGBoosterCreate(&data.handle, 1, &booster), "XGBoosterCreate");
    boosters_.push_back(booster);
    for (const auto& [key, value] : kBoosterParameters) check(XGBoosterSetParam(booster, key, value), key);
    for (int round = 0; round < rounds_; ++round)
      check(XGBoosterUpdateOneIter(booster, round, data.handle), "XGBoosterUpdateOneIter");
  }
}

std::vector<CostPrediction> CostModel::predict(const std::vector<float>& rows) const {
  MDH_INTERNAL_ASSERT(!boosters_.empty(), "a prediction before the cost model was fitted");
  MDH_INTERNAL_ASSERT(rows.size() % features_ == 0, "cost model rows of inconsistent shape");
  const size_t n = rows.size() / features_;
  std::vector<CostPrediction> predictions(n);
  if (n == 0) return predictions;
  Matrix data(rows, features_);
  std::vector<double> sum(n, 0), square(n, 0);
  for (void* booster : boosters_) {
    bst_ulong length = 0;
    const float* values = nullptr;
    // option_mask 0: plain predictions; ntree_limit 0: every tree; training 0: no dropout.
    check(XGBoosterPredict(booster, data.handle, 0, 0, 0, &length, &values), "XGBoosterPredict");
    MDH_INTERNAL_ASSERT(length == n, "XGBoost predicted " + std::to_string(length) + " of " + std::to_string(n));
    for (size_t k = 0; k < n; ++k) {
      sum[k] += values[k];
      square[k] += static_cast<double>(values[k]) * values[k];
    }
  }
  const double members = static_cast<double>(boosters_.size());
  for (size_t k = 0; k < n; ++k) {
    const double mean = sum[k] / members;
    const double variance = std::max(0.0, square[k] / members - mean * mean);
    predictions[k] = {offset_ + scale_ * mean, scale_ * std::sqrt(variance)};
  }
  return predictions;
}

}  // namespace mdh::tuner
