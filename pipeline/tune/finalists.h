// After the search: its fastest configurations and the default start timed again side by side
// (tuner/evaluate/final_timing.h), so that the result is the configuration that is fastest as the benchmark times it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "codegen/tuning_space.h"
#include "mdh/bind.h"
#include "pipeline/tune/tuning_settings.h"
#include "tuner/evaluate/final_timing.h"
#include "tuner/tuner.h"

namespace mdh {

/// The default start's cost where the search measured it in full (replayed evaluations count): it joins the final
/// timing as "default".
class DefaultStartWatch {
 public:
  explicit DefaultStartWatch(std::optional<tuner::Configuration> default_configuration)
      : default_configuration_(std::move(default_configuration)) {}
  DefaultStartWatch(const DefaultStartWatch&) = delete;
  DefaultStartWatch& operator=(const DefaultStartWatch&) = delete;
  /// Watches the search's evaluations before options.on_evaluation sees them.
  void watch(tuner::TunerOptions& options);
  const std::optional<tuner::Finalist>& finalist() const { return finalist_; }

 private:
  const std::optional<tuner::Configuration> default_configuration_;
  std::optional<tuner::Finalist> finalist_;
};

/// The search's fastest settings.finalists configurations and the default start timed again, with a note on how they
/// fared; nullopt where the run was interrupted or asks for none.
std::optional<tuner::FinalTiming> time_finalists(tuner::Evaluator& evaluator, const tuner::TuningResult& result,
                                                 const std::optional<tuner::Finalist>& default_start,
                                                 const TuningSettings& settings);

/// The final timing as the result file records it (TuningResultFile::final_timing).
nlohmann::json final_timing_json(const tuner::FinalTiming& timing, const BoundMdh& bound, const TuningSpace& space);

}  // namespace mdh
