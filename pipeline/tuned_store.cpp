#include "pipeline/tuned_store.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "codegen/config_json.h"
#include "codegen/tunable_geometry.h"
#include "codegen/tuning_space.h"
#include "mdh/signature.h"
#include "pipeline/tune.h"
#include "pipeline/tuning_result.h"
#include "support/error.h"
#include "support/input_file.h"
#include "support/untrusted_json.h"

#ifndef MDH_TUNED_RESULTS_DIR
#define MDH_TUNED_RESULTS_DIR ""
#endif

namespace mdh {

namespace fs = std::filesystem;

std::string tuned_store_directory(const std::string& option) {
  if (!option.empty()) return option;
  if (const char* env = std::getenv("MDH_TUNED_RESULTS"); env && *env) return env;
  return MDH_TUNED_RESULTS_DIR;
}

double tuned_sizes_distance(const SizeBinding& tuned, const SizeBinding& asked) {
  double sum = 0;
  for (const auto& [name, value] : asked) {
    const double d = std::log2(static_cast<double>(tuned.at(name))) - std::log2(static_cast<double>(value));
    sum += d * d;
  }
  return std::sqrt(sum);
}

namespace {

// "I=1024,J=1024,K=1024" in the spec's order of size declarations.
std::string sizes_text(const Mdh& mdh, const SizeBinding& sizes) {
  std::string text;
  for (const SizeSymbol& s : mdh.sizes)
    if (auto found = sizes.find(s.name); found != sizes.end())
      text += (text.empty() ? "" : ",") + s.name + "=" + std::to_string(found->second);
  return text.empty() ? "no sizes" : text;
}

// The sizes a result records, when they are exactly the md_hom's size symbols with positive integer values.
std::optional<SizeBinding> recorded_sizes(const nlohmann::json& json, const BoundMdh& bound) {
  if (!json.is_object() || json.size() != bound.sizes.size()) return std::nullopt;
  SizeBinding sizes;
  for (const auto& [name, value] : bound.sizes) {
    if (!json.contains(name) || !json[name].is_number_integer() || json[name].get<int64_t>() < 1) return std::nullopt;
    sizes[name] = json[name].get<int64_t>();
  }
  return sizes;
}

}  // namespace

std::optional<std::string> stored_shape_mismatch(const BoundMdh& tuned, const BoundMdh& asked,
                                                 const nlohmann::json& config) {
  const Mdh& mdh = *asked.mdh;
  for (size_t d = 0; d < mdh.dims.size(); ++d) {
    const int64_t tuned_extent = tuned.dim_extents[d], asked_extent = asked.dim_extents[d];
    for (const char* family : {"LT_SIZE", "PT_SIZE"}) {
      const std::string name = std::string(family) + "_" + mdh.dims[d].name;
      if (!config.contains(name) || !config[name].is_number_integer()) continue;
      const int64_t tile = config[name].get<int64_t>();
      if (tile < 1 || (tuned_extent % tile == 0) == (asked_extent % tile == 0)) continue;
      return name + " " + std::to_string(tile) + (tuned_extent % tile == 0 ? " divided " : " did not divide ") +
             mdh.dims[d].name + "'s extent " + std::to_string(tuned_extent) + " and " +
             (asked_extent % tile == 0 ? "divides " : "does not divide ") + std::to_string(asked_extent);
    }
  }
  return std::nullopt;
}

namespace {

const char* fullness_name(Fullness f) {
  return f == Fullness::Always ? "always full" : f == Fullness::Sometimes ? "sometimes full" : "never full";
}

}  // namespace

std::optional<std::string> stored_win_missing(const TuningResultFile& result) {
  const nlohmann::json& timing = result.final_timing;
  if (!timing.is_object() || !timing.contains("finalists") || !timing["finalists"].is_array() ||
      !timing.contains("chosen") || !timing["chosen"].is_number_integer() || timing["chosen"].get<int64_t>() < 0 ||
      timing["chosen"].get<uint64_t>() >= timing["finalists"].size())
    return "it records no final timing against the default configuration";
  const nlohmann::json& finalists = timing["finalists"];
  const nlohmann::json& chosen = finalists[timing["chosen"].get<size_t>()];
  const nlohmann::json* reference = nullptr;
  for (const nlohmann::json& f : finalists)
    if (f.is_object() && f.value("role", "") == "default") reference = &f;
  if (!reference) return "its final timing timed no default configuration";
  if (&chosen == reference) return "its final timing chose the default configuration";
  // The chosen one's slowest round and the default's fastest, where every round has a time.
  auto rounds = [](const nlohmann::json& f, bool slowest) -> std::optional<double> {
    if (!f.is_object() || !f.contains("round_ns") || !f["round_ns"].is_array() || f["round_ns"].empty())
      return std::nullopt;
    double out = slowest ? -INFINITY : INFINITY;
    for (const nlohmann::json& r : f["round_ns"]) {
      if (!r.is_number() || !(r.get<double>() > 0)) return std::nullopt;
      out = slowest ? std::max(out, r.get<double>()) : std::min(out, r.get<double>());
    }
    return out;
  };
  const std::optional<double> chosen_slowest = rounds(chosen, true), default_fastest = rounds(*reference, false);
  if (!chosen_slowest || !default_fastest) return "its final timing has no round times of both";
  if (*chosen_slowest < *default_fastest) return std::nullopt;
  char text[160];
  std::snprintf(text, sizeof text,
                "its final timing did not time it faster than the default in every round (slowest round %.4g ms, "
                "the default's fastest %.4g ms)",
                *chosen_slowest / 1e6, *default_fastest / 1e6);
  return std::string(text);
}

std::optional<std::string> stored_paths_mismatch(const BoundMdh& tuned, const BoundMdh& asked,
                                                 const KernelConfig& config) {
  const TunableGeometry there = tunable_geometry(tuned, config), here = tunable_geometry(asked, config);
  const Mdh& mdh = *asked.mdh;
  for (size_t d = 0; d < mdh.dims.size(); ++d) {
    const std::pair<const char*, const std::vector<Fullness> TunableGeometry::*> kinds[] = {
        {"local tiles", &TunableGeometry::local_tile_fullness},
        {"private steps", &TunableGeometry::step_fullness},
        {"result slots", &TunableGeometry::tile_slots_fullness}};
    for (const auto& [kind, member] : kinds) {
      const Fullness was = (there.*member)[d], is = (here.*member)[d];
      if (was == is) continue;
      return std::string(kind) + " along " + mdh.dims[d].name + " were " + fullness_name(was) + " at extent " +
             std::to_string(tuned.dim_extents[d]) + " and are " + fullness_name(is) + " at " +
             std::to_string(asked.dim_extents[d]) + " (" + std::to_string(there.local_tiles[d]) + " and " +
             std::to_string(here.local_tiles[d]) + " local tiles over NUM_WG " + std::to_string(config.num_wg.at(d)) +
             ")";
    }
  }
  return std::nullopt;
}

std::vector<StoredResult> stored_results_in(const std::string& folder, const BoundMdh& bound, const std::string& slug,
                                            const TunedStoreNote& note) {
  using Candidate = StoredResult;
  std::vector<std::string> paths;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error))
    if (it->path().extension() == ".json" && it->is_regular_file(error)) paths.push_back(it->path().string());
  std::sort(paths.begin(), paths.end());

  const Mdh& mdh = *bound.mdh;
  const std::string signature = md_hom_signature(mdh);
  std::optional<std::string> spec_bytes_hash;  // read once, only for results without a signature
  std::vector<Candidate> out;
  for (const std::string& path : paths) {
    const InputFile file = read_input_file(path, kMaxConfigBytes);
    if (!file.ok) continue;  // not a configuration (an oversized table) or unreadable: not part of the store
    nlohmann::json json = parse_untrusted_json_or_discarded(file.bytes);
    if (!TuningResultFile::is_result(json) || !json.contains("md_hom") || json["md_hom"] != mdh.name) continue;
    Candidate c;
    c.path = path;
    try {
      c.result = TuningResultFile::from_json(json);
    } catch (const UserError& e) {
      note("not using " + path + ": " + e.what());
      continue;
    }
    if (!slug.empty() && c.result.device.contains("slug") && c.result.device["slug"] != slug) {
      note("not using " + path + ": tuned on another device (" + c.result.device["slug"].dump() + ")");
      continue;
    }
    if (c.result.precision != precision_name(bound.precision)) {
      note("not using " + path + ": tuned in " + c.result.precision + ", asked in " + precision_name(bound.precision));
      continue;
    }
    if (!c.result.md_hom_signature.empty()) {
      if (c.result.md_hom_signature != signature) {
        note("not using " + path + ": tuned for another version of " + mdh.name + " (md_hom signature " +
             c.result.md_hom_signature + "; " + mdh.file + " has " + signature + ")");
        continue;
      }
    } else {
      if (!spec_bytes_hash) {
        try {
          spec_bytes_hash = spec_hash(mdh.file);
        } catch (const UserError&) {
          spec_bytes_hash = "unreadable";  // the spec was parsed from text or has gone: no version to compare
        }
      }
      if (c.result.spec_hash != *spec_bytes_hash) {
        note("not using " + path + ": tuned for another version of " + mdh.file + " (spec hash " +
             (c.result.spec_hash.empty() ? "not recorded" : c.result.spec_hash) + ", the file now hashes " +
             *spec_bytes_hash + "; the result records no md_hom signature)");
        continue;
      }
    }
    const std::optional<SizeBinding> sizes = recorded_sizes(c.result.sizes, bound);
    if (!sizes) {
      note("not using " + path + ": its sizes " + c.result.sizes.dump() + " are not the sizes of " + mdh.name);
      continue;
    }
    c.sizes = *sizes;
    c.distance = tuned_sizes_distance(c.sizes, bound.sizes);
    out.push_back(std::move(c));
  }
  // Ties of distance: the higher recorded rate (GFLOP/s, else GB/s, where both results record it) first, since
  // results of other sizes at the same distance do different amounts of work (the smaller one's kernel is faster
  // however it is configured); else the faster recorded kernel.
  auto higher = [](const std::optional<double>& x, const std::optional<double>& y) -> std::optional<bool> {
    if (!x || !y || *x == *y) return std::nullopt;
    return *x > *y;
  };
  // Distances equal but for rounding (log2 26 - log2 13 is not exactly log2 74 - log2 37) are ties: compared on a
  // grid of 1e-9.
  auto rounded = [](double distance) { return std::llround(distance * 1e9); };
  std::stable_sort(out.begin(), out.end(), [&](const Candidate& a, const Candidate& b) {
    if (rounded(a.distance) != rounded(b.distance)) return rounded(a.distance) < rounded(b.distance);
    if (const std::optional<bool> rate = higher(a.result.gflops, b.result.gflops)) return *rate;
    if (const std::optional<bool> rate = higher(a.result.gbytes_per_second, b.result.gbytes_per_second)) return *rate;
    if (a.result.kernel_time_ns != b.result.kernel_time_ns) return a.result.kernel_time_ns < b.result.kernel_time_ns;
    return a.path < b.path;
  });
  return out;
}

std::optional<StoredConfiguration> find_tuned_configuration(const std::string& store, const BoundMdh& bound,
                                                            const DeviceInfo& device, const DeviceLimits& limits,
                                                            const TunedStoreNote& note) {
  return find_tuned_configuration(store, bound, device_slug(device), limits, note);
}

std::optional<StoredConfiguration> find_tuned_configuration(const std::string& store, const BoundMdh& bound,
                                                            const std::string& slug, const DeviceLimits& limits,
                                                            const TunedStoreNote& note) {
  const Mdh& mdh = *bound.mdh;
  const std::string asked = sizes_text(mdh, bound.sizes);
  if (store.empty() || store == kNoTunedStore) return std::nullopt;
  const fs::path folder = fs::path(store) / slug;
  std::error_code error;
  if (!fs::is_directory(folder, error)) {
    note("no tuned configurations for " + slug + " in " + store + "; using the default configuration");
    return std::nullopt;
  }
  const std::vector<StoredResult> candidates = stored_results_in(folder.string(), bound, slug, note);
  for (const StoredResult& c : candidates) {
    KernelConfig config;
    try {
      config = config_from_json(bound, c.result.config);
      check_config(bound, config, limits);
    } catch (const UserError& e) {
      std::string why = e.what();
      if (why.rfind("error: ", 0) == 0) why.erase(0, 7);
      note("not using " + c.path + " (sizes " + sizes_text(mdh, c.sizes) + "): not valid for " + asked + ": " + why);
      continue;
    }
    char distance[32];
    std::snprintf(distance, sizeof distance, "%.2f", c.distance);
    // At other sizes only a configuration that beat the default where it was tuned, at nearby sizes, of the same shape
    // is taken: far from its sizes, with tiles that now leave edges where they left none (or the reverse), or with
    // work-groups that now own uneven shares of tiles, a stored configuration can run many times slower than the
    // default, which is derived for the sizes asked for (docs/decisions.md).
    if (c.distance > kMaxStoredDistance) {
      note("not using " + c.path + " (sizes " + sizes_text(mdh, c.sizes) + "): tuned for sizes too far from " + asked +
           " (log2 distance " + distance + ", more than " + std::to_string(static_cast<int>(kMaxStoredDistance)) + ")");
      continue;
    }
    if (c.distance > 0) {
      if (const std::optional<std::string> missing = stored_win_missing(c.result)) {
        note("not using " + c.path + " (sizes " + sizes_text(mdh, c.sizes) + "): tuned for other sizes than " + asked +
             ", and " + *missing);
        continue;
      }
    }
    // Its own sizes bound and the configuration checked there, since the geometry below assumes a valid one: a
    // result that is not valid where it claims to have been tuned is not trusted anywhere.
    std::optional<BoundMdh> tuned;
    try {
      tuned = bind(bound.mdh, c.sizes);
      check_config(*tuned, config, limits);
    } catch (const UserError& e) {
      std::string why = e.what();
      if (why.rfind("error: ", 0) == 0) why.erase(0, 7);
      note("not using " + c.path + " (sizes " + sizes_text(mdh, c.sizes) + "): not valid for its own sizes: " + why);
      continue;
    }
    if (const std::optional<std::string> mismatch =
            stored_shape_mismatch(*tuned, bound, config_to_json(bound, config))) {
      note("not using " + c.path + " (sizes " + sizes_text(mdh, c.sizes) + "): its tiles do not fit " + asked +
           " as they fit its own sizes (" + *mismatch + ")");
      continue;
    }
    if (const std::optional<std::string> mismatch = stored_paths_mismatch(*tuned, bound, config)) {
      note("not using " + c.path + " (sizes " + sizes_text(mdh, c.sizes) + "): its kernel runs other paths at " +
           asked + " than at its own sizes (" + *mismatch + ")");
      continue;
    }
    note("using tuned configuration " + c.path + " (sizes " + sizes_text(mdh, c.sizes) +
         (c.distance == 0 ? ", the sizes asked for"
                          : ", nearest to " + asked + " of " + std::to_string(candidates.size()) + " stored for " +
                                mdh.name + " on " + slug + ", log2 distance " + distance) +
         ")");
    return StoredConfiguration{c.path, c.sizes, c.distance, candidates.size(), config};
  }
  note(std::string(candidates.empty() ? "no tuned configuration of " + mdh.name + " for " + slug + " in " + store
                                      : "none of the " + std::to_string(candidates.size()) +
                                            " tuned configurations of " + mdh.name + " for " + slug + " is valid for " +
                                            asked + ", near enough, a win where it was tuned and of the same shape") +
       "; using the default configuration");
  return std::nullopt;
}

KernelChoice resolve_kernel_choice(const KernelChoice& choice, const BoundMdh& bound, const DeviceInfo& device,
                                   const DeviceLimits& limits, const TunedStoreNote& note,
                                   std::optional<StoredConfiguration>* taken) {
  return resolve_kernel_choice(choice, bound, device_slug(device), limits, note, taken);
}

KernelChoice resolve_kernel_choice(const KernelChoice& choice, const BoundMdh& bound, const std::string& slug,
                                   const DeviceLimits& limits, const TunedStoreNote& note,
                                   std::optional<StoredConfiguration>* taken) {
  if (choice.kind != KernelChoice::Kind::stored) return choice;
  std::optional<StoredConfiguration> stored = find_tuned_configuration(choice.config_path, bound, slug, limits, note);
  if (!stored) return KernelChoice::default_configuration();
  KernelChoice resolved = KernelChoice::typed(stored->config, "tuned config " + stored->path);
  if (taken) *taken = std::move(stored);
  return resolved;
}

}  // namespace mdh
