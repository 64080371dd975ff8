// Tuned configurations a user can reuse: the result files of `mdh tune --out`, kept per device in one folder (like
// CLBlast's database), from which `mdh run`, `export`, `inspect` and the Python module take the configuration tuned
// for the nearest sizes when the user names none. Nothing stored is trusted: a stored configuration is used only for
// the same md_hom on the same device, and only after it is checked valid for the sizes asked for.
//
// Layout: STORE/<device slug>/*.json (runtime/device.h, device_slug), the top level of each device's folder only;
// files that are not tuning results are passed over. The repository's tuned/ is such a store.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codegen/device_limits.h"
#include "codegen/kernel_config.h"
#include "mdh/bind.h"
#include "pipeline/kernel.h"
#include "pipeline/tuning_result.h"
#include "runtime/device.h"

namespace mdh {

/// The value of --tuned-results or MDH_TUNED_RESULTS that means "no store": always the default configuration.
inline constexpr const char* kNoTunedStore = "none";

/// Where the store lies: `option` (--tuned-results) when given, else $MDH_TUNED_RESULTS when set and not empty, else
/// the folder compiled in (CMake's MDH_TUNED_RESULTS_DIR, by default the source tree's tuned/). May be
/// kNoTunedStore.
std::string tuned_store_directory(const std::string& option = "");

/// How far the sizes a result was tuned for lie from the sizes asked for: the Euclidean distance of their base-2
/// logarithms over the md_hom's size symbols, sqrt(sum over s of (log2 tuned[s] - log2 asked[s])^2). 0 for the same
/// sizes; doubling or halving one size is 1, whatever its magnitude, so 1024 vs 2048 is as near as 8 vs 16.
double tuned_sizes_distance(const SizeBinding& tuned, const SizeBinding& asked);

/// Where the lines saying what the lookup took and passed over go (`mdh` prints them to stderr as "note: ...").
using TunedStoreNote = std::function<void(const std::string&)>;

/// A tuning result of the store recorded for an md_hom.
struct StoredResult {
  std::string path;
  TuningResultFile result;
  SizeBinding sizes;    // what it was tuned for
  double distance = 0;  // tuned_sizes_distance to the sizes asked for
};

/// The results in one folder of the store (a device's: its top level) recorded for this md_hom (the same name and
/// signature, mdh/signature.h; results written before signatures were recorded: the same spec bytes) and, unless
/// `slug` is empty, for this device; nearest sizes first (ties: the higher recorded GFLOP/s, else GB/s, else the
/// faster recorded kernel, then the file name). Each result of the md_hom passed over is named in a note with the
/// reason. Nothing here checks a configuration.
std::vector<StoredResult> stored_results_in(const std::string& folder, const BoundMdh& bound, const std::string& slug,
                                            const TunedStoreNote& note);

/// A stored configuration taken for a run.
/// How far (tuned_sizes_distance) a stored result's sizes may lie from the sizes asked for: a factor of 2 in one
/// size, or less in several.
inline constexpr double kMaxStoredDistance = 1.0;

/// Why a configuration tuned at `tuned`'s sizes has another shape at `asked`'s: a tile size (LT_SIZE, PT_SIZE of the
/// config's JSON form) that divided a dimension's extent there and does not here, or the reverse; nullopt where every
/// tile divides both or neither. A tile that now leaves an edge runs the guarded code the tuning never timed.
std::optional<std::string> stored_shape_mismatch(const BoundMdh& tuned, const BoundMdh& asked,
                                                 const nlohmann::json& config);

/// Why a result shows no win over the default configuration at its own sizes: its final timing (tuning_result.h) is
/// missing, chose the default, timed no default, or did not time the chosen configuration faster than the default in
/// every round (its slowest round below the default's fastest); nullopt where it did. At other sizes only a result
/// that won where it was tuned is taken: the default is derived for the sizes asked for, so a tie there is a likely
/// loss elsewhere (docs/decisions.md).
std::optional<std::string> stored_win_missing(const TuningResultFile& result);

/// Why a configuration tuned at `tuned`'s sizes runs other code paths at `asked`'s: along some dimension its local
/// tiles, private steps or result slots are full always, sometimes or never (codegen/tunable_geometry.h) where they
/// were otherwise at the tuned sizes, e.g. work-groups that each owned whole tiles and now own an uneven share; nullopt
/// where every dimension's tiles fill alike. Guarded or peeled code the tuning never timed can be many times slower.
std::optional<std::string> stored_paths_mismatch(const BoundMdh& tuned, const BoundMdh& asked,
                                                 const KernelConfig& config);

struct StoredConfiguration {
  std::string path;       // the result file
  SizeBinding sizes;      // what it was tuned for
  double distance = 0;    // tuned_sizes_distance to the sizes asked for
  size_t candidates = 0;  // results of this md_hom and device that were considered
  KernelConfig config;    // valid for the md_hom, the sizes asked for and the device
};

/// Looks in `store` for this md_hom on this device: results recorded for the device's slug whose md_hom has the same
/// name and signature (mdh/signature.h; results written before signatures were recorded: the same spec bytes,
/// spec_hash), nearest sizes first (ties: the higher recorded GFLOP/s, else GB/s, else the faster recorded kernel,
/// then the file name), and returns the first whose configuration is valid here (config_of_json: the md_hom, the
/// sizes asked for, the device's limits), either tuned for the sizes asked for, or tuned within
/// kMaxStoredDistance, faster than the default there (stored_win_missing) and of the same shape at the sizes asked
/// for (stored_shape_mismatch, stored_paths_mismatch); none such: the default. Every result of the md_hom passed over
/// is named in a note with the reason, and so is the one taken, or why none was. Unreadable store folders count as
/// empty. Never throws for what the store holds.
std::optional<StoredConfiguration> find_tuned_configuration(const std::string& store, const BoundMdh& bound,
                                                            const DeviceInfo& device, const DeviceLimits& limits,
                                                            const TunedStoreNote& note);
/// The same for the device of store folder `slug` (a device profile's), whose limits are `limits`.
std::optional<StoredConfiguration> find_tuned_configuration(const std::string& store, const BoundMdh& bound,
                                                            const std::string& slug, const DeviceLimits& limits,
                                                            const TunedStoreNote& note);

/// `choice` as it is, unless it is KernelChoice::stored(): then the configuration find_tuned_configuration finds
/// (typed, described by its file), or the device's default configuration. `taken` receives the stored
/// configuration when one was taken.
KernelChoice resolve_kernel_choice(const KernelChoice& choice, const BoundMdh& bound, const DeviceInfo& device,
                                   const DeviceLimits& limits, const TunedStoreNote& note,
                                   std::optional<StoredConfiguration>* taken = nullptr);
/// The same for the device of store folder `slug` (a device profile's), whose limits are `limits`.
KernelChoice resolve_kernel_choice(const KernelChoice& choice, const BoundMdh& bound, const std::string& slug,
                                   const DeviceLimits& limits, const TunedStoreNote& note,
                                   std::optional<StoredConfiguration>* taken = nullptr);

}  // namespace mdh
