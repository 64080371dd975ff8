// Transfer between tuning runs: a run for a new size or device starts from the best configurations stored for the
// same md_hom (the store of tuned results, pipeline/tuned_store.h: tuned/ by default), each re-checked against this
// run's md_hom, sizes, device and search space, never trusted. A configuration tuned for 1024^3 on one GPU is often a
// good start for 2048^3 or for another GPU; one that no longer fits as stored (work-group counts beyond the new
// extent) is adapted to the nearest valid configuration, and one that cannot be used is passed over with a note.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "codegen/device_limits.h"
#include "mdh/bind.h"
#include "tuner/space/search_space.h"

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
  /// Stored results of the md_hom that cannot be used: "not using PATH: why".
  std::vector<std::string> skipped;
  /// Stored results of the md_hom that fit but were left out: a configuration taken already, or beyond the limit.
  size_t left_out = 0;
};

/// The results of this md_hom in every device's folder of the store (pipeline/tuned_store.h: the same md_hom name
/// and signature), re-checked (config, device limits, search space) and adapted where they do not fit; up to `limit`
/// distinct configurations not among `exclude` (the run's other starts): those that fit as stored first, then those
/// tuned on the device of `device_slug`, then those of the nearest sizes, then by path. Nothing for kNoTunedStore;
/// an unreadable store gives nothing.
TransferredStarts find_transferred_starts(const std::string& store, const BoundMdh& bound, const DeviceLimits& limits,
                                          const tuner::SearchSpace& space, const std::string& device_slug, size_t limit,
                                          const std::vector<tuner::Point>& exclude);

}  // namespace mdh
