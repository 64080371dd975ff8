// A space rebuilt from recorded measurements: JSON lines {"config": {...}, "cost": number | null}, one per
// configuration of a space measured exhaustively (null, or a missing cost, marks a failed configuration). The journal
// of an exhaustive `mdh tune` run is such a file (its header line is skipped, its lists are read as names). The
// replay lets technique quality be measured on a real landscape without a device.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tuner/evaluate/evaluation.h"
#include "tuner/search/technique.h"
#include "tuner/space/parameter.h"

namespace mdh::tuner {

struct RecordedSpace {
  /// One parameter per configuration key (sorted by name); ranges are the recorded values, and each parameter's
  /// constraint admits exactly the recorded prefixes, so the space is exactly the set of recorded configurations.
  std::vector<Parameter> parameters;
  /// Values in parameter order -> cost (nullopt: the configuration failed).
  std::map<std::vector<int64_t>, Cost> costs;
  /// The best recorded cost (nullopt if every configuration failed).
  Cost best;
};

/// Throws mdh::UserError for unreadable files, malformed lines (with the line number), configurations with
/// differing keys, and values other than integers, booleans, strings or lists (strings and lists become
/// enumerations).
RecordedSpace load_recorded_space(const std::string& path);

/// Answers evaluations from the recording.
class RecordedCostFunction final : public CostFunction {
 public:
  explicit RecordedCostFunction(const RecordedSpace& recorded) : recorded_(recorded) {}
  EvaluationResult evaluate(const Configuration& configuration) override;

 private:
  const RecordedSpace& recorded_;
};

}  // namespace mdh::tuner
