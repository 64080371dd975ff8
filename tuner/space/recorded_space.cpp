// Loading recorded measurements into a space whose constraints reproduce exactly the recorded configurations.
#include "tuner/space/recorded_space.h"

#include <fstream>
#include <memory>
#include <set>

#include "support/error.h"
#include "support/untrusted_json.h"

namespace mdh::tuner {
namespace {

enum class RecordedKind { integer, boolean, text };

}  // namespace

RecordedSpace load_recorded_space(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError("cannot read recorded costs '" + path + "'");
  std::vector<nlohmann::json> configurations;
  std::vector<Cost> costs;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json record = parse_untrusted_json_or_discarded(line);
    auto bad = [&](const std::string& why) {
      return UserError("recorded costs '" + path + "' line " + std::to_string(number) + ": " + why);
    };
    if (record.is_discarded() || !record.is_object()) throw bad("not a JSON object");
    // A tuning journal of an exhaustive run is a recording too: its header line is not a measurement.
    if (number == 1 && record.contains("mdh_tuner_journal")) continue;
    if (!record.contains("config") || !record["config"].is_object()) throw bad("no \"config\" object");
    const nlohmann::json cost = record.value("cost", nlohmann::json());
    if (!cost.is_null() && !cost.is_number()) throw bad("\"cost\" is neither a number nor null");
    const bool ok = record.value("status", std::string("ok")) == "ok" && cost.is_number();
    configurations.push_back(record["config"]);
    costs.push_back(ok ? Cost(cost.get<double>()) : std::nullopt);
    if (configurations.front().size() != configurations.back().size()) throw bad("its parameters differ from line 1's");
  }
  if (configurations.empty()) throw UserError("recorded costs '" + path + "' hold no configuration");

  // 1. Parameters: names from the first record, kinds and value sets from all.
  std::vector<std::string> names;
  for (const auto& [name, value] : configurations.front().items()) names.push_back(name);
  std::vector<RecordedKind> kinds;
  std::vector<std::vector<std::string>> texts(names.size());
  std::vector<std::set<int64_t>> integers(names.size());
  for (size_t p = 0; p < names.size(); ++p) {
    const nlohmann::json& first = configurations.front()[names[p]];
    // Lists (a journal's permutations) are names too: their JSON text.
    RecordedKind kind = first.is_boolean()          ? RecordedKind::boolean
                        : first.is_number_integer() ? RecordedKind::integer
                        : first.is_string() || first.is_array()
                            ? RecordedKind::text
                            : throw UserError("recorded costs '" + path + "': parameter '" + names[p] +
                                              "' is not an integer, boolean, string "
                                              "or list");
    kinds.push_back(kind);
  }
  std::vector<std::vector<int64_t>> rows;
  for (const nlohmann::json& configuration : configurations) {
    std::vector<int64_t> row;
    for (size_t p = 0; p < names.size(); ++p) {
      auto it = configuration.find(names[p]);
      if (it == configuration.end())
        throw UserError("recorded costs '" + path + "': a configuration lacks '" + names[p] + "'");
      int64_t value = 0;
      switch (kinds[p]) {
        case RecordedKind::boolean:
          if (!it->is_boolean()) throw UserError("recorded costs '" + path + "': '" + names[p] + "' mixes kinds");
          value = it->get<bool>() ? 1 : 0;
          break;
        case RecordedKind::integer:
          if (!it->is_number_integer())
            throw UserError("recorded costs '" + path + "': '" + names[p] + "' mixes kinds");
          value = it->get<int64_t>();
          integers[p].insert(value);
          break;
        case RecordedKind::text: {
          if (!it->is_string() && !it->is_array())
            throw UserError("recorded costs '" + path + "': '" + names[p] + "' mixes kinds");
          const std::string text = it->is_string() ? it->get<std::string>() : it->dump();
          auto& seen = texts[p];
          auto found = std::find(seen.begin(), seen.end(), text);
          value = found - seen.begin();
          if (found == seen.end()) seen.push_back(text);
          break;
        }
      }
      row.push_back(value);
    }
    rows.push_back(std::move(row));
  }

  // 2. Every recorded prefix, so parameter p admits exactly the values that continue some recorded prefix.
  auto prefixes = std::make_shared<std::vector<std::set<std::vector<int64_t>>>>(names.size());
  for (const auto& row : rows)
    for (size_t p = 0; p < names.size(); ++p)
      (*prefixes)[p].insert(std::vector<int64_t>(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(p) + 1));

  RecordedSpace recorded;
  for (size_t p = 0; p < names.size(); ++p) {
    Parameter parameter = kinds[p] == RecordedKind::boolean ? Parameter::boolean(names[p])
                          : kinds[p] == RecordedKind::text
                              ? Parameter::enumeration(names[p], texts[p])
                              : Parameter::integer(names[p], Range::set({integers[p].begin(), integers[p].end()}));
    std::vector<std::string> reads(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(p));
    parameter.constrain(reads, [prefixes, p](int64_t value, std::span<const int64_t> earlier) {
      std::vector<int64_t> key(earlier.begin(), earlier.end());
      key.push_back(value);
      return (*prefixes)[p].count(key) != 0;
    });
    recorded.parameters.push_back(std::move(parameter));
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!recorded.costs.emplace(rows[r], costs[r]).second)
      throw UserError("recorded costs '" + path + "': configuration " + configurations[r].dump() + " appears twice");
    if (costs[r] && (!recorded.best || *costs[r] < *recorded.best)) recorded.best = costs[r];
  }
  return recorded;
}

EvaluationResult RecordedCostFunction::evaluate(const Configuration& configuration) {
  auto it = recorded_.costs.find(configuration.values());
  if (it == recorded_.costs.end())
    throw UserError("configuration " + configuration.to_json().dump() + " was not recorded");
  if (!it->second) return EvaluationResult::failed(EvaluationStatus::error, "failed when recorded");
  return EvaluationResult::ok(*it->second);
}

}  // namespace mdh::tuner
