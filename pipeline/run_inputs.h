// What data an md_hom runs on, as the user names it (--seed, --param, --input, --prl-data), and the loaded data.
// The named form is plain data with a JSON form, so that a tuning request hands it to worker processes as it is.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "mdh/bind.h"
#include "runtime/host_buffer.h"

namespace mdh {

struct DataOptions {
  uint64_t seed = 1;                               // of the inputs not read from files
  std::map<std::string, std::string> params;       // NAME -> value text
  std::map<std::string, std::string> input_files;  // buffer NAME -> .npy / .bin path
  bool prl_data = false;                           // inputs a, b and freq from the synthetic record generator

  nlohmann::json to_json() const;
  static DataOptions from_json(const nlohmann::json& json);
};

struct RunInputs {
  std::map<std::string, HostBuffer> inputs;  // from files and the PRL generator; the rest is seeded random
  std::map<std::string, std::string> params;
  uint64_t seed = 1;
};

/// The sizes that the shapes of given inputs determine: each extent of an input declared as a bare size (`float[I][K]`)
/// binds that size to the array's extent. Extents declared by expressions (`float[I+4]`) determine nothing; a size
/// two arrays disagree on is left to the shape check of the run, which names both shapes. Unknown buffer names and
/// shapes of the wrong rank are ignored here for the same reason.
SizeBinding sizes_from_shapes(const Mdh& mdh, const std::map<std::string, std::vector<int64_t>>& shapes);

/// Reads the input files (checked against the bound buffer declarations) and generates the PRL records.
RunInputs load_run_inputs(const BoundMdh& bound, const DataOptions& options);

}  // namespace mdh
