// The final timing of the search's finalists and its record in the result file.
#include "pipeline/tune/finalists.h"

#include <algorithm>
#include <cstdio>

#include "codegen/config_json.h"
#include "codegen/kernel_config.h"
#include "pipeline/tuning_search_space.h"

namespace mdh {

void DefaultStartWatch::watch(tuner::TunerOptions& options) {
  options.on_evaluation = [this, next = std::move(options.on_evaluation)](
                              const tuner::TuningStatus& status, const tuner::EvaluationRecord& record, bool replayed) {
    if (default_configuration_ && !finalist_ && record.result.status == tuner::EvaluationStatus::ok &&
        !record.result.cut && record.configuration == default_configuration_->to_json())
      finalist_ = tuner::Finalist{*default_configuration_, record.result.cost, "default"};
    if (next) next(status, record, replayed);
  };
}

std::optional<tuner::FinalTiming> time_finalists(tuner::Evaluator& evaluator, const tuner::TuningResult& result,
                                                 const std::optional<tuner::Finalist>& default_start,
                                                 const TuningSettings& settings) {
  if (settings.finalists == 0 || result.leaders.empty()) return std::nullopt;
  if (settings.interrupt && settings.interrupt->load()) {
    if (settings.note) settings.note("interrupted: the search's best is the result, without a final timing");
    return std::nullopt;
  }
  std::vector<tuner::Finalist> finalists;
  for (size_t k = 0; k < result.leaders.size() && k < settings.finalists; ++k) {
    const auto& [configuration, cost] = result.leaders[k];
    const bool is_default = default_start && default_start->configuration == configuration;
    finalists.push_back({configuration, cost, is_default ? default_start->role : "search"});
  }
  if (default_start && std::none_of(finalists.begin(), finalists.end(), [&](const tuner::Finalist& f) {
        return f.configuration == default_start->configuration;
      }))
    finalists.push_back(*default_start);
  tuner::FinalTiming timing =
      tuner::time_finalists(evaluator, finalists, tuner::FinalTimingOptions{}, settings.interrupt);
  if (settings.note) {
    if (timing.interrupted) {
      settings.note("interrupted during the final timing: the search's best is the result");
    } else if (!timing.chosen) {
      settings.note("final timing: no finalist could be timed again (" + timing.finalists[0].failure +
                    "); the search's best is the result");
    } else {
      // "search #2 0.0601 ms (searched 0.0598) <- chosen; default 0.0700 ms (searched 0.0702)"
      auto ms = [](double seconds) {
        char text[32];
        std::snprintf(text, sizeof text, "%.4g", seconds * 1e3);
        return std::string(text);
      };
      std::string line = "final timing (" + std::to_string(timing.rounds) + " rounds of " +
                         std::to_string(timing.runs_per_round) + " runs, timed as the benchmark times): ";
      for (size_t k = 0; k < timing.finalists.size(); ++k) {
        const tuner::FinalistTiming& t = timing.finalists[k];
        line += (k ? "; " : "") + (t.finalist.role == "search" ? "search #" + std::to_string(k + 1) : t.finalist.role);
        if (t.cost)
          line.append(" ").append(ms(*t.cost)).append(" ms");
        else
          line.append(" failed (").append(t.failure, 0, 80).append(")");
        if (t.finalist.search_cost) line += " (searched " + ms(*t.finalist.search_cost) + ")";
        if (k == *timing.chosen) line += " <- chosen";
      }
      settings.note(line);
    }
  }
  return timing;
}

// The final timing as the result file records it (TuningResultFile::final_timing).
nlohmann::json final_timing_json(const tuner::FinalTiming& timing, const BoundMdh& bound, const TuningSpace& space) {
  nlohmann::json finalists = nlohmann::json::array();
  for (const tuner::FinalistTiming& t : timing.finalists) {
    nlohmann::json entry = {{"role", t.finalist.role}};
    if (t.finalist.search_cost) entry["search_ns"] = *t.finalist.search_cost * 1e9;
    if (t.cost) entry["final_ns"] = *t.cost * 1e9;
    if (!t.failure.empty()) entry["failure"] = t.failure;
    nlohmann::json rounds = nlohmann::json::array();
    for (double cost : t.round_costs) rounds.push_back(cost * 1e9);
    entry["round_ns"] = rounds;
    entry["config"] = config_to_json(bound, kernel_config_of(bound, space, t.finalist.configuration));
    finalists.push_back(std::move(entry));
  }
  return {{"protocol",
           "each finalist once a round, in turn; a round: warm-up, then runs_per_round runs, each a call of its own "
           "from a reset output (as peers are timed), checked; its cost the median of its runs, the final cost the "
           "median of the rounds'"},
          {"rounds", timing.rounds},
          {"runs_per_round", timing.runs_per_round},
          {"finalists", finalists},
          {"chosen", timing.chosen ? nlohmann::json(*timing.chosen) : nlohmann::json()}};
}

}  // namespace mdh
