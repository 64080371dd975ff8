// Golden test of the whole tunable kernel generator: the launch plan (source and launches) of every configuration
// committed in the tuning-result store, and of the default configuration of every spec under apps/ at two sizes for
// a GPU and a CPU, hashed and compared with tests/codegen/golden/kernel_hashes.txt. A refactoring of codegen/ must
// leave every line unchanged; after an intended change of the generated code, rewrite the manifest with
// MDH_UPDATE_GOLDEN=1 and say in the commit why the kernels changed.
//
// Cases are named by where they come from, never by the store's own folder: `<device folder>/<file>` below results/
// or tuned/ (so moving the store keeps the names), and `default/<spec>/<sizes>/<gpu|cpu>`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
#include "codegen/launch_plan.h"
#include "codegen/tunable_kernel.h"
#include "support/error.h"
#include "support/fnv1a.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/hopper_device_limits.h"
#include "tests/stored_device_limits.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kManifest = "tests/codegen/golden/kernel_hashes.txt";

// The folders that hold committed tuning results, relative to the source tree (the store is moving to tuned/).
const char* const kStores[] = {"results", "tuned"};

// A CPU as PoCL reports one: no dedicated local memory, 16-float vectors, 16 compute units.
DeviceLimits cpu_like_limits() {
  DeviceLimits l;
  l.max_work_group_size = 4096;
  l.max_work_item_sizes = {4096, 4096, 4096};
  l.local_mem_bytes = 4 * 1024 * 1024;
  l.max_alloc_bytes = uint64_t{2} << 30;
  l.compute_units = 16;
  l.simd_width = 16;
  l.float_vector_width = 16;
  return l;
}

// Results name the spec by the absolute path of the checkout they were made in; the spec is the one under apps/.
std::string spec_relative_path(const std::string& recorded) {
  const auto at = recorded.rfind("apps/");
  return at == std::string::npos ? recorded : recorded.substr(at);
}

std::string size_text(const json& sizes) {
  if (sizes.is_string()) return sizes.get<std::string>();
  std::string text;
  for (const auto& [name, value] : sizes.items()) text += (text.empty() ? "" : ",") + name + "=" + value.dump();
  return text;
}

// "<source hash> <launch hash>" of the plan, or "error <message hash>" where generation refuses the case (that
// refusal is part of what must not change).
std::string outcome(const std::function<LaunchPlan()>& generate) {
  try {
    const LaunchPlan plan = generate();
    return fnv1a_64_hex(plan.source) + " " + fnv1a_64_hex(launch_to_json(plan).dump());
  } catch (const UserError& e) {
    return "error " + fnv1a_64_hex(e.what());
  }
}

// The configuration a committed JSON file holds: tuning results and hand-made configurations carry "config";
// benchmark records of mdh carry the config they ran in notes.config_values; other files hold none.
const json* committed_config(const json& j) {
  if (!j.is_object() || !j.contains("spec") || !j.contains("sizes")) return nullptr;
  if (j.contains("config")) return &j["config"];
  if (j.contains("notes") && j["notes"].is_object() && j["notes"].contains("config_values"))
    return &j["notes"]["config_values"];
  return nullptr;
}

void add_committed_cases(std::map<std::string, std::string>& cases) {
  for (const char* store : kStores) {
    const fs::path root = fs::path(MDH_SOURCE_DIR) / store;
    if (!fs::is_directory(root)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(root))
      if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      json j;
      std::ifstream(file) >> j;
      const json* config = committed_config(j);
      if (!config) continue;
      const std::string name = fs::relative(file, root).generic_string();
      const std::string device_folder = name.substr(0, name.find('/'));
      cases[name] = outcome([&] {
        BoundMdh bound = testing::bind_app(spec_relative_path(j["spec"].get<std::string>()), size_text(j["sizes"]));
        // Results and records name the precision they ran in (fp32 where they do not).
        if (j.contains("precision") && j["precision"].is_string())
          bound.precision = parse_precision(j["precision"].get<std::string>());
        return generate_tunable_kernel(bound, config_from_json(bound, *config),
                                       testing::stored_device_limits(device_folder));
      });
    }
  }
}

// Two sizes per spec, from its size names alone: every size 13 (edge tiles everywhere) and every size the power of
// two that gives about 2^24 index points (DOT 2^24, GEMM 256^3, the contractions 8^7).
std::vector<std::string> default_sizes(const Mdh& mdh) {
  const int dims = static_cast<int>(mdh.sizes.size());
  const int64_t large = int64_t{1} << (24 / std::max(dims, 1));
  std::vector<std::string> sizes;
  for (int64_t value : {int64_t{13}, large}) {
    std::string text;
    for (const SizeSymbol& s : mdh.sizes) text += (text.empty() ? "" : ",") + s.name + "=" + std::to_string(value);
    sizes.push_back(text);
  }
  return sizes;
}

void add_default_cases(std::map<std::string, std::string>& cases) {
  const fs::path source(MDH_SOURCE_DIR);
  std::vector<std::string> specs;
  for (const auto& entry : fs::recursive_directory_iterator(source / "apps"))
    if (entry.is_regular_file() && entry.path().extension() == ".mdh")
      specs.push_back(fs::relative(entry.path(), source).generic_string());
  std::sort(specs.begin(), specs.end());
  const std::pair<const char*, DeviceLimits> devices[] = {{"gpu", testing::hopper_device_limits()},
                                                          {"cpu", cpu_like_limits()}};
  for (const std::string& spec : specs) {
    const auto mdh = parse_spec(testing::read_source_file(spec), spec);
    for (const std::string& sizes : default_sizes(*mdh))
      for (const auto& [device, limits] : devices)
        cases["default/" + spec + "/" + sizes + "/" + device] = outcome([&] {
          const BoundMdh bound = testing::bind_app(spec, sizes);
          return generate_tunable_kernel(bound, default_config(bound, limits), limits);
        });
  }
}

std::map<std::string, std::string> read_manifest() {
  std::map<std::string, std::string> manifest;
  std::istringstream in(testing::read_source_file(kManifest));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.find(' ');
    manifest[line.substr(0, space)] = line.substr(space + 1);
  }
  return manifest;
}

void write_manifest(const std::map<std::string, std::string>& cases) {
  std::ofstream out(std::string(MDH_SOURCE_DIR) + "/" + kManifest, std::ios::binary);
  out << "# name source-hash launch-hash (FNV-1a 64), or name error message-hash: "
         "tests/codegen/committed_kernels_golden_test.cpp\n";
  for (const auto& [name, hashes] : cases) out << name << " " << hashes << "\n";
}

TEST(CommittedKernelsGolden, EveryKernelIsByteIdentical) {
  std::map<std::string, std::string> cases;
  add_committed_cases(cases);
  add_default_cases(cases);
  const char* update = std::getenv("MDH_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    write_manifest(cases);
    return;
  }
  const std::map<std::string, std::string> manifest = read_manifest();
  for (const auto& [name, hashes] : cases) {
    const auto expected = manifest.find(name);
    if (expected == manifest.end())
      ADD_FAILURE() << name << ": not in " << kManifest << " (MDH_UPDATE_GOLDEN=1 adds it)";
    else
      EXPECT_EQ(hashes, expected->second) << name << ": the generated kernel changed";
  }
  for (const auto& [name, hashes] : manifest)
    if (!cases.count(name)) ADD_FAILURE() << name << ": in " << kManifest << " but no longer generated";
  // The store holds well over a hundred configurations; an empty walk would prove nothing.
  EXPECT_GT(cases.size(), 150u);
}

}  // namespace
}  // namespace mdh
