// CLBlast "tuned": the JSON files CLBlast's own tuners write (clblast_<family>_32.json, from peers/tune_clblast.sh),
// turned into parameter overrides per CLBlast database kernel and applied with clblast::OverrideParameters.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace mdh::peers {

/// Per CLBlast database kernel ("Xgemm", "XgemmDirect", "Xgemv", "XgemvFast", "Xdot", "Copy", ...): the tuned
/// parameters. Within one tuner family the fastest result counts; families that tune the same kernel (xgemm_1/2/
/// 11/12) are applied slowest first, so the fastest one's values win where they overlap.
struct ClblastTuning {
  std::map<std::string, std::map<std::string, size_t>> parameters;
  nlohmann::json sources = nlohmann::json::array();  // per file: family, best kernel, best time, device
};

/// The CLBlast database kernel a tuner family tunes: "xgemm_12" -> "Xgemm", "xgemv_2" -> "XgemvFast", ...
/// Empty for a family this harness does not know.
std::string clblast_database_kernel(const std::string& kernel_family);

/// Reads every clblast_*_32.json in `dir` (single precision). UserError when the folder has none, a file is not a
/// tuner's output, or it was tuned on another device than `device_name` (compared with the file's "device").
ClblastTuning read_clblast_tuning(const std::string& dir, const std::string& device_name);

/// For each kernel: the shipped parameters (clblast::RetrieveParameters) overlaid with the tuned ones, then
/// clblast::OverrideParameters. Returns what was applied, for the record. UserError on a CLBlast failure.
nlohmann::json apply_clblast_tuning(cl_device_id device, const ClblastTuning& tuning);

}  // namespace mdh::peers
