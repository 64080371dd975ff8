// Transfer between tuning runs: a run for a new size or device starts from the best configurations stored for the
// same md_hom (the `mdh tune` results under results/), each re-checked against this run's md_hom, sizes, device and
// search space, never trusted. A configuration tuned for 1024^3 on one GPU is often a good start for 2048^3 or for
// another GPU; one that no longer fits (a tile larger than the new extent) is skipped and said so.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "codegen/device_limits.h"
#include "mdh/bind.h"
#include "tuner/search_space.h"

namespace mdh {

/// At most this many stored results start a run (each costs one evaluation).
constexpr size_t kMaxTransferredStarts = 4;

struct TransferredStart {
  std::string path;  // the result file it came from
  tuner::Point point;
  /// Empty when the stored configuration fits this run as it is; else why it did not, and it was adapted: work-group
  /// counts scaled by the extents' ratio, values moved to the nearest searched ones, then the nearest valid
  /// configuration.
  std::string adapted_because;
};

struct TransferredStarts {
  std::vector<TransferredStart> taken;
  struct Skipped {
    std::string path, reason;  // the reason is the re-check's message
  };
  /// Stored results of the md_hom that do not fit this run.
  std::vector<Skipped> skipped;
  /// Stored results of the md_hom that fit but were left out: a configuration taken already, or beyond the limit.
  size_t left_out = 0;
};

/// The folder of stored results a spec's tuning run starts from: `results` in the spec's folder or in the nearest
/// folder above it (a source checkout's results/); nullopt when there is none.
std::optional<std::string> default_results_folder(const std::string& spec_path);

/// Every `mdh tune` result (*.json) under `folder` whose md_hom is bound's, re-checked (config, device limits,
/// search space) and adapted where it does not fit; up to `limit` distinct configurations not among `exclude` (the
/// run's other starts): those that fit as stored first, then those tuned on `device_name`, then those of the
/// nearest sizes (sum of |log2| size ratios), then by path. Files that are not tuning results, or results of another
/// md_hom, are ignored; an unreadable folder gives nothing.
TransferredStarts find_transferred_starts(const std::string& folder, const BoundMdh& bound, const DeviceLimits& limits,
                                          const tuner::SearchSpace& space, const std::string& device_name, size_t limit,
                                          const std::vector<tuner::Point>& exclude);

}  // namespace mdh
