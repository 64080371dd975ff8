// A learned cost model for the model-guided search: an ensemble of gradient-boosted regression trees (XGBoost's C
// API, as TVM's cost model), each member fitted to a bootstrap resample of the measurements, so that the members'
// spread says where the model is unsure. Built only with XGBoost (MDH_WITH_XGBOOST).
#pragma once

#include <cstdint>
#include <vector>

#include "tuner/space/random.h"

namespace mdh::tuner {

/// One prediction: the members' mean and their standard deviation.
struct CostPrediction {
  double mean = 0;
  double spread = 0;
};

class CostModel {
 public:
  /// `members` boosters of `rounds` trees each. Training is single-threaded and seeded by the caller's Rng only,
  /// so the same data and Rng state give the same model (and predictions) in every run.
  CostModel(size_t members, int rounds);
  ~CostModel();
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;

  /// Fits the ensemble to `rows` (row-major, `features` per row) and their targets; bootstrap weights come from rng.
  /// Replaces the previous fit. Requires at least one row.
  void fit(const std::vector<float>& rows, size_t features, const std::vector<float>& targets, Rng& rng);
  /// Predictions for `rows` (row-major, as many features per row as the fit had). Requires a fit.
  std::vector<CostPrediction> predict(const std::vector<float>& rows) const;

 private:
  void release();
  size_t members_;
  int rounds_;
  size_t features_ = 0;
  double offset_ = 0, scale_ = 1;  // targets are standardised for training: target = offset_ + scale_ * fitted
  std::vector<void*> boosters_;    // XGBoost BoosterHandle per member
};

}  // namespace mdh::tuner
