#include "peers/clblast_tuned.h"

#include <clblast.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "support/error.h"

namespace mdh::peers {

std::string clblast_database_kernel(const std::string& kernel_family) {
  // The family is "<tuner>_<variant>" or just "<tuner>".
  std::string tuner = kernel_family, variant;
  auto underscore = kernel_family.find_last_of('_');
  if (underscore != std::string::npos && underscore + 1 < kernel_family.size() &&
      std::all_of(kernel_family.begin() + static_cast<long>(underscore) + 1, kernel_family.end(),
                  [](unsigned char c) { return std::isdigit(c); })) {
    tuner = kernel_family.substr(0, underscore);
    variant = kernel_family.substr(underscore + 1);
  }
  // The three GEMV kernels have database entries of their own; CLBlast's tuners name their families either
  // xgemv_1/_2/_3 or (Debian 12's CLBlast 1.5) xgemv, xgemv_fast, xgemv_fast_rot.
  if (tuner == "xgemv_fast") return "XgemvFast";
  if (tuner == "xgemv_fast_rot") return "XgemvFastRot";
  if (tuner == "xgemv") {
    if (variant.empty()) return "Xgemv";
    if (variant == "1") return "Xgemv";
    if (variant == "2") return "XgemvFast";
    if (variant == "3") return "XgemvFastRot";
    return "";
  }
  static const std::map<std::string, std::string> kByTuner = {{"xgemm", "Xgemm"},
                                                              {"xgemm_direct", "XgemmDirect"},
                                                              {"xdot", "Xdot"},
                                                              {"xaxpy", "Xaxpy"},
                                                              {"xger", "Xger"},
                                                              {"copy", "Copy"},
                                                              {"pad", "Pad"},
                                                              {"transpose", "Transpose"},
                                                              {"padtranspose", "Padtranspose"},
                                                              {"invert", "Invert"},
                                                              {"xconvgemm", "Xconvgemm"}};
  auto it = kByTuner.find(tuner);
  return it == kByTuner.end() ? "" : it->second;
}

ClblastTuning read_clblast_tuning(const std::string& dir, const std::string& device_name) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw UserError("--tuned " + dir + ": not a folder");
  struct Best {
    std::string kernel;
    double time_ms;
    std::map<std::string, size_t> parameters;
  };
  std::vector<Best> bests;
  ClblastTuning tuning;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("clblast_", 0) == 0 && name.size() > 8 && name.substr(name.size() - 8) == "_32.json")
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& path : files) {
    std::ifstream in(path);
    nlohmann::json file;
    try {
      in >> file;
    } catch (const nlohmann::json::exception& e) {
      throw UserError(path.string() + ": not JSON: " + e.what());
    }
    if (!file.contains("kernel_family") || !file.contains("results") || !file["results"].is_array())
      throw UserError(path.string() + ": not the output of a CLBlast tuner (no kernel_family or results)");
    const std::string family = file["kernel_family"].get<std::string>();
    const std::string tuned_on = file.value("device", "");
    if (tuned_on != device_name)
      throw UserError(path.string() + ": tuned on '" + tuned_on + "', but the peer runs on '" + device_name + "'");
    const std::string kernel = clblast_database_kernel(family);
    if (kernel.empty()) throw UserError(path.string() + ": unknown CLBlast tuner family '" + family + "'");
    const nlohmann::json* best = nullptr;
    for (const auto& result : file["results"])
      if (!best || result.at("time").get<double>() < best->at("time").get<double>()) best = &result;
    if (!best) continue;  // the tuner found no valid configuration; the shipped parameters stay
    Best b{kernel, best->at("time").get<double>(), {}};
    for (const auto& [name, value] : best->at("parameters").items())
      if (name != "PRECISION") b.parameters[name] = value.get<size_t>();
    tuning.sources.push_back({{"file", path.filename().string()},
                              {"family", family},
                              {"kernel", kernel},
                              {"best_time_ms", b.time_ms},
                              {"parameters", b.parameters}});
    bests.push_back(std::move(b));
  }
  if (files.empty()) throw UserError("--tuned " + dir + ": no clblast_*_32.json files (run peers/tune_clblast.sh)");
  // Slowest first, so the fastest family's values overwrite shared parameters of the same kernel.
  std::stable_sort(bests.begin(), bests.end(), [](const Best& x, const Best& y) { return x.time_ms > y.time_ms; });
  for (const Best& b : bests)
    for (const auto& [name, value] : b.parameters) tuning.parameters[b.kernel][name] = value;
  return tuning;
}

nlohmann::json apply_clblast_tuning(cl_device_id device, const ClblastTuning& tuning) {
  nlohmann::json applied = nlohmann::json::object();
  for (const auto& [kernel, tuned] : tuning.parameters) {
    std::unordered_map<std::string, size_t> parameters;
    auto status = clblast::RetrieveParameters(device, kernel, clblast::Precision::kSingle, parameters);
    if (status != clblast::StatusCode::kSuccess)
      throw UserError("CLBlast RetrieveParameters(" + kernel + ") failed with status " +
                      std::to_string(static_cast<int>(status)));
    for (const auto& [name, value] : tuned) parameters[name] = value;
    status = clblast::OverrideParameters(device, kernel, clblast::Precision::kSingle, parameters);
    if (status != clblast::StatusCode::kSuccess)
      throw UserError("CLBlast OverrideParameters(" + kernel + ") failed with status " +
                      std::to_string(static_cast<int>(status)));
    applied[kernel] = std::map<std::string, size_t>(parameters.begin(), parameters.end());
  }
  return applied;
}

}  // namespace mdh::peers
