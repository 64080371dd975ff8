// Benchmark: how close each technique gets to the known optimum of a landscape after 50, 100, 200 and 500
// evaluations (median over 20 seeds of best cost / optimum). Landscapes: synthetic shapes with optima found by
// enumeration, an analytic GEMM model on the CLBlast Xgemm space (M = 32), and recorded measurements of real spaces
// (tests/data/recorded_space_*.jsonl, or files given on the command line) replayed without a device; with --surrogate,
// a real mdh tuning space with the costs of a tuning run's journal (surrogate() below) instead.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tuner/search/seeded_technique.h"
#include "tuner/search/technique_registry.h"
#include "tuner/space/random.h"
#include "tuner/space/recorded_space.h"
#include "tuner/space/search_space.h"
#include "tuner/tuner.h"
#ifdef MDH_TUNING_QUALITY_WITH_MDH
#include <deque>
#include <fstream>
#include <nlohmann/json.hpp>

#include "codegen/tuning_space.h"
#include "mdh/bind.h"
#include "mdh/parser.h"
#include "pipeline/tuning_search_space.h"
#include "tests/hopper_device_limits.h"
#endif

namespace tuner = mdh::tuner;
using tuner::Parameter;
using tuner::Range;
using Reads = std::span<const int64_t>;
using Values = std::vector<int64_t>;

namespace {

constexpr uint64_t kSeeds = 20;
// The evaluations after which a run's best is reported; the last is the run's budget (--checkpoints A,B,C,D).
std::vector<uint64_t> kCheckpoints = {50, 100, 200, 500};

// Deterministic noise in [0, 1) from a configuration (SplitMix64 over its values).
double noise(const Values& v, uint64_t salt) {
  uint64_t h = salt;
  for (int64_t x : v) h = tuner::derive_seed(h, static_cast<uint64_t>(x));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

// A(1..32) B(1..32) C <= A+B (1..32) D power of two with A*D <= 512, E flag.
std::vector<Parameter> grid_space() {
  std::vector<Parameter> p;
  p.push_back(Parameter::integer("A", Range::interval(1, 32)));
  p.push_back(Parameter::integer("B", Range::interval(1, 32)));
  p.push_back(Parameter::integer("C", Range::interval(1, 32)).constrain({"A", "B"}, [](int64_t c, Reads r) {
    return c <= r[0] + r[1];
  }));
  p.push_back(Parameter::integer("D", Range::powers_of_two(1, 64)).constrain({"A"}, [](int64_t d, Reads r) {
    return r[0] * d <= 512;
  }));
  p.push_back(Parameter::boolean("E"));
  return p;
}

double grid_bowl(const Values& v) {
  double a = (v[0] - 23) / 32.0, b = (v[1] - 9) / 32.0, c = (v[2] - 17) / 32.0, d = (std::log2(v[3]) - 4) / 6.0;
  return 1.0 + 4 * a * a + 2 * b * b + 3 * c * c + 2 * d * d + (v[4] ? 0.0 : 0.2);
}

// Rosenbrock's banana valley over (A, B), scaled to [-2, 2].
double grid_valley(const Values& v) {
  double x = (v[0] - 1) / 31.0 * 4 - 2, y = (v[1] - 1) / 31.0 * 4 - 2;
  return 1.0 + (1 - x) * (1 - x) + 10 * (y - x * x) * (y - x * x) + 0.01 * std::abs(v[2] - 10) + (v[4] ? 0 : 0.05) +
         0.02 * std::abs(std::log2(v[3]) - 2);
}

double grid_rugged(const Values& v) {
  return grid_bowl(v) * (1 + 0.5 * noise(v, 1));
}

// A simple GEMM performance model on Xgemm's parameters (M = 32): work per thread, occupancy, vector widths,
// local-memory reuse and register pressure; lower is faster.
double xgemm_model(const Values& v) {
  const double MWG = v[0], NWG = v[1], KWG = v[2], MDIMC = v[3], NDIMC = v[4], VWM = v[8], VWN = v[9];
  const double threads = MDIMC * NDIMC;
  const double accumulators = (MWG / MDIMC) * (NWG / NDIMC);
  const double workgroups = (32 / MWG) * (32 / NWG);
  double occupancy = std::min(1.0, workgroups * threads / 256.0) * std::min(1.0, threads / 32.0);
  double registers = accumulators <= 32 ? 1.0 : 32.0 / accumulators;
  double reuse = std::sqrt(accumulators) / (1 + std::sqrt(accumulators));
  double vectors = 0.6 + 0.2 * std::log2(VWM) / 3 + 0.2 * std::log2(VWN) / 3;
  double local = (v[12] ? 1.1 : 1.0) * (v[13] ? 1.1 : 1.0) * (KWG >= 8 ? 1.0 : 0.8);
  double strides = v[10] == v[11] ? 1.0 : 0.97;
  return 1.0 / (occupancy * registers * reuse * vectors * local * strides + 1e-9) * (1 + 0.05 * noise(v, 2));
}

std::vector<Parameter> xgemm_space(int64_t M) {
  std::vector<Parameter> p;
  auto divides = [M](int64_t v) { return M % v == 0; };
  p.push_back(Parameter::integer("MWG", Range::interval(1, M)).constrain(divides));
  p.push_back(Parameter::integer("NWG", Range::interval(1, M)).constrain(divides));
  p.push_back(Parameter::integer("KWG", Range::interval(1, M)).constrain(divides));
  p.push_back(Parameter::integer("MDIMC", Range::interval(1, M)).constrain({"MWG"}, [](int64_t v, Reads r) {
    return r[0] % v == 0;
  }));
  p.push_back(Parameter::integer("NDIMC", Range::interval(1, M)).constrain({"NWG", "MDIMC"}, [](int64_t v, Reads r) {
    return r[0] % v == 0 && r[1] * v <= 1024;
  }));
  auto dima = [](int64_t v, Reads r) {
    int64_t threads = r[1] * r[2];
    return r[0] % v == 0 && threads % v == 0 && r[3] % (threads / v) == 0;
  };
  p.push_back(Parameter::integer("MDIMA", Range::interval(1, M)).constrain({"MWG", "MDIMC", "NDIMC", "KWG"}, dima));
  p.push_back(Parameter::integer("NDIMB", Range::interval(1, M)).constrain({"NWG", "MDIMC", "NDIMC", "KWG"}, dima));
  p.push_back(Parameter::integer("KWI", Range::interval(1, M)).constrain({"KWG"}, [](int64_t v, Reads r) {
    return r[0] % v == 0;
  }));
  auto vw = [](int64_t v, Reads r) { return (r[0] / r[1]) % v == 0 && (r[0] / r[2]) % v == 0; };
  p.push_back(Parameter::integer("VWM", Range::set({1, 2, 4, 8})).constrain({"MWG", "MDIMC", "MDIMA"}, vw));
  p.push_back(Parameter::integer("VWN", Range::set({1, 2, 4, 8})).constrain({"NWG", "NDIMC", "NDIMB"}, vw));
  p.push_back(Parameter::boolean("STRM"));
  p.push_back(Parameter::boolean("STRN"));
  p.push_back(Parameter::boolean("SA"));
  p.push_back(Parameter::boolean("SB").constrain({"SA", "KWG", "MWG", "VWM", "NWG", "VWN"}, [](int64_t sb, Reads r) {
    return (r[0] * r[1] * r[2] / r[3] + sb * r[1] * r[4] / r[5]) * 4 <= 49152;
  }));
  return p;
}

struct Landscape {
  std::string name;
  std::shared_ptr<tuner::SearchSpace> space;
  std::function<tuner::EvaluationResult(const tuner::Configuration&)> evaluate;
  double optimum = 0;
};

class FunctionCost final : public tuner::CostFunction {
 public:
  explicit FunctionCost(const Landscape& landscape) : landscape_(landscape) {}
  tuner::EvaluationResult evaluate(const tuner::Configuration& c) override { return landscape_.evaluate(c); }

 private:
  const Landscape& landscape_;
};

// The optimum by enumerating every configuration.
double enumerate_optimum(const Landscape& landscape) {
  double best = INFINITY;
  const tuner::SearchSpace& space = *landscape.space;
  const uint64_t size = static_cast<uint64_t>(space.size());
  for (uint64_t i = 0; i < size; ++i) {
    tuner::EvaluationResult r = landscape.evaluate(space.configuration(space.point_of(tuner::BigUnsigned(i))));
    if (r.status == tuner::EvaluationStatus::ok) best = std::min(best, r.cost);
  }
  return best;
}

Landscape synthetic(std::string name, std::shared_ptr<tuner::SearchSpace> space, double (*cost)(const Values&),
                    double failure_share = 0) {
  Landscape landscape{std::move(name), std::move(space), nullptr, 0};
  landscape.evaluate = [cost, failure_share](const tuner::Configuration& c) {
    // Failures are spread by hash; the best tenth of configurations never fails, so the optimum stays valid.
    double value = cost(c.values());
    if (failure_share > 0 && noise(c.values(), 3) < failure_share && value > 1.1)
      return tuner::EvaluationResult::failed(tuner::EvaluationStatus::build_error, "synthetic");
    return tuner::EvaluationResult::ok(value);
  };
  landscape.optimum = enumerate_optimum(landscape);
  return landscape;
}

// The median of a sample (the mean of the two middle values of an even count).
double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Configurations the tuner asks ahead of its reports (TunerOptions::lookahead): 96 in an mdh tune run with 16 compile
// workers. A technique then decides its next asks without the costs of the last `lookahead` ones.
size_t lookahead = 0;
// Timing noise: each evaluation's cost is its landscape cost times (1 + noise_sigma * a standard normal draw), drawn
// anew per evaluation, as repeated timings of one kernel on a GPU differ; the technique sees only the noisy costs,
// and a run's quality is the landscape cost of the configuration it measured fastest. 0: exact costs.
double noise_sigma = 0;
// Whether each run starts from a given configuration (a valid one drawn from the run's seed), as mdh tune starts
// from the default configuration, instead of the technique's own first samples.
bool from_a_start = false;
// A landscape's own start (the surrogate's: the journal's first configuration, the default start of its run); used
// instead of a drawn one with --from-a-start.
std::optional<tuner::Point> landscape_start;

void report(const Landscape& landscape, const std::vector<std::string>& techniques) {
  std::printf("\n%s: %s configurations, optimum %.6g\n", landscape.name.c_str(),
              tuner::to_grouped_decimal(landscape.space->size()).c_str(), landscape.optimum);
  std::printf("  %-24s", "technique");
  for (uint64_t c : kCheckpoints) std::printf("    @%-4llu", static_cast<unsigned long long>(c));
  std::printf("   seeds at optimum @%-4llu evaluations to 5%% (median)\n",
              static_cast<unsigned long long>(kCheckpoints.back()));
  for (const std::string& name : techniques) {
    std::vector<std::vector<double>> ratios(kCheckpoints.size());
    // Evaluations until the best is within 5% of the optimum; a run that never gets there counts as the budget + 1.
    std::vector<double> to_within_5_percent;
    int at_optimum = 0;
    for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
      std::unique_ptr<tuner::SearchTechnique> technique = tuner::make_technique(name);
      if (from_a_start) {
        tuner::Rng draw(seed * 7919);
        const tuner::Point start = landscape_start ? *landscape_start : landscape.space->sample(draw);
        technique = std::make_unique<tuner::SeededTechnique>(std::move(technique), std::vector<tuner::Point>{start});
      }
      // The noisy landscape: exact costs stay available for judging the run.
      Landscape noisy = landscape;
      auto exact_of_measured = std::make_shared<std::map<double, double>>();
      if (noise_sigma > 0) {
        auto draw = std::make_shared<tuner::Rng>(seed * 104729);
        noisy.evaluate = [&landscape, draw, exact_of_measured](const tuner::Configuration& c) {
          tuner::EvaluationResult r = landscape.evaluate(c);
          if (r.status != tuner::EvaluationStatus::ok) return r;
          // A standard normal draw (Box-Muller).
          const double u = 1 - draw->uniform01(), v = draw->uniform01();
          const double normal = std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
          const double exact = r.cost;
          r.cost *= std::max(0.5, 1 + noise_sigma * normal);
          (*exact_of_measured)[r.cost] = exact;
          return r;
        };
      }
      FunctionCost cost(noisy);
      tuner::TunerOptions options;
      options.seed = seed;
      options.lookahead = lookahead;
      double best = INFINITY;           // the landscape cost of the configuration measured fastest
      double measured_best = INFINITY;  // its measured cost
      const uint64_t budget = kCheckpoints[kCheckpoints.size() - 1];
      uint64_t within = budget + 1;
      std::vector<double> best_at(kCheckpoints.size(), INFINITY);
      options.on_evaluation = [&](const tuner::TuningStatus& status, const tuner::EvaluationRecord& record, bool) {
        if (record.result.status == tuner::EvaluationStatus::ok && record.result.cost < measured_best) {
          measured_best = record.result.cost;
          best = noise_sigma > 0 ? exact_of_measured->at(record.result.cost) : record.result.cost;
        }
        if (best <= 1.05 * landscape.optimum) within = std::min(within, status.evaluations);
        for (size_t k = 0; k < kCheckpoints.size(); ++k)
          if (status.evaluations <= kCheckpoints[k]) best_at[k] = best;
      };
      tuner::tune(*landscape.space, *technique, tuner::evaluations(budget), cost, options);
      to_within_5_percent.push_back(static_cast<double>(within));
      for (size_t k = 0; k < kCheckpoints.size(); ++k) {
        // A run that ended early (space exhausted) keeps its final best for later checkpoints.
        if (k > 0 && std::isinf(best_at[k])) best_at[k] = best_at[k - 1];
        ratios[k].push_back(best_at[k] / landscape.optimum);
      }
      if (best_at.back() <= landscape.optimum) ++at_optimum;
    }
    std::printf("  %-24s", name.c_str());
    for (const auto& r : ratios) std::printf(" %8.4f", median(r));
    const double to_5 = median(to_within_5_percent);
    char to_5_text[32];
    if (to_5 > static_cast<double>(kCheckpoints[kCheckpoints.size() - 1]))
      std::snprintf(to_5_text, sizeof to_5_text, "> %llu",
                    static_cast<unsigned long long>(kCheckpoints[kCheckpoints.size() - 1]));
    else
      std::snprintf(to_5_text, sizeof to_5_text, "%g", to_5);
    std::printf("   %5d/%-16llu %s\n", at_optimum, static_cast<unsigned long long>(kSeeds), to_5_text);
    std::fflush(stdout);
  }
}

#ifdef MDH_TUNING_QUALITY_WITH_MDH
// A surrogate of a real mdh tuning space: the space of SPEC at SIZES for an H100/H200's limits, as `mdh tune` searches
// it, with the costs of a journal of a run on that device. A configuration the journal holds costs what it cost there;
// any other costs what the journal's nearest configuration (in the space's coordinates) cost, or fails where that one
// failed. Crude far from the run's path, but it keeps what a climb meets near it: which parameter groups' changes
// move the time and which barely do.
Landscape surrogate(const std::string& spec, const std::string& sizes, const std::string& journal_path) {
  static std::deque<mdh::BoundMdh> bounds;  // the space's constraints point into the bound md_hom
  const mdh::BoundMdh& bound =
      bounds.emplace_back(mdh::bind(mdh::parse_spec_file(spec), mdh::parse_size_binding(sizes)));
  auto space = std::make_shared<tuner::SearchSpace>(
      mdh::make_search_space(mdh::make_tuning_space(bound, mdh::testing::hopper_device_limits())));
  struct Record {
    std::vector<double> coordinates;
    tuner::Cost cost;
  };
  auto records = std::make_shared<std::vector<Record>>();
  auto exact = std::make_shared<std::map<tuner::Point, tuner::Cost>>();
  std::ifstream in(journal_path);
  std::string line;
  size_t skipped = 0;
  while (std::getline(in, line)) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("config")) continue;
    std::optional<tuner::Point> point;
    try {
      point = space->point_of(space->configuration_from_json(j["config"]));
    } catch (const std::exception&) {
    }
    if (!point) {
      ++skipped;
      continue;
    }
    tuner::Cost cost;
    if (j.value("status", "") == "ok" && j["cost"].is_number()) cost = j["cost"].get<double>();
    if (!landscape_start) landscape_start = *point;
    if (exact->emplace(*point, cost).second) records->push_back({space->coordinates(*point), cost});
  }
  Landscape landscape{"surrogate of " + journal_path, space, nullptr, INFINITY};
  for (const auto& [point, cost] : *exact)
    if (cost) landscape.optimum = std::min(landscape.optimum, *cost);
  std::printf("\n%s: %zu configurations recorded (%zu outside this space's lattices, skipped)\n",
              landscape.name.c_str(), records->size(), skipped);
  std::fflush(stdout);
  landscape.evaluate = [space, records, exact](const tuner::Configuration& c) {
    const std::optional<tuner::Point> point = space->point_of(c);
    tuner::Cost cost;
    if (!point) {
      return tuner::EvaluationResult::failed(tuner::EvaluationStatus::build_error, "not a point of the space");
    } else if (auto hit = exact->find(*point); hit != exact->end()) {
      cost = hit->second;
    } else {
      const std::vector<double> x = space->coordinates(*point);
      double nearest = INFINITY;
      for (const Record& r : *records) {
        double d = 0;
        for (size_t k = 0; k < x.size(); ++k) d += (x[k] - r.coordinates[k]) * (x[k] - r.coordinates[k]);
        if (d < nearest) nearest = d, cost = r.cost;
      }
    }
    return cost ? tuner::EvaluationResult::ok(*cost)
                : tuner::EvaluationResult::failed(tuner::EvaluationStatus::build_error, "surrogate");
  };
  return landscape;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  // Arguments: recorded spaces (files), --technique NAME (repeatable; default: every technique), --recorded-only,
  // --lookahead N (default 0), --from-a-start, --noise SIGMA (default 0), --checkpoints A,B,C,D,
  // --surrogate SPEC SIZES JOURNAL (only that landscape; with --from-a-start, from the journal's first configuration).
  std::vector<std::string> recordings, techniques, surrogate_args;
  bool recorded_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--technique" && i + 1 < argc)
      techniques.push_back(argv[++i]);
    else if (argument == "--recorded-only")
      recorded_only = true;
    else if (argument == "--lookahead" && i + 1 < argc)
      lookahead = std::stoul(argv[++i]);
    else if (argument == "--checkpoints" && i + 1 < argc) {
      kCheckpoints.clear();
      std::stringstream list(argv[++i]);
      for (std::string item; std::getline(list, item, ',');) kCheckpoints.push_back(std::stoull(item));
    } else if (argument == "--surrogate" && i + 3 < argc) {
      surrogate_args = {argv[i + 1], argv[i + 2], argv[i + 3]};
      i += 3;
    } else if (argument == "--noise" && i + 1 < argc)
      noise_sigma = std::stod(argv[++i]);
    else if (argument == "--from-a-start")
      from_a_start = true;
    else
      recordings.push_back(argument);
  }
  if (techniques.empty()) techniques = tuner::technique_names();
  if (recordings.empty() && std::filesystem::is_directory(MDH_TEST_DATA_DIR))
    for (const auto& entry : std::filesystem::directory_iterator(MDH_TEST_DATA_DIR)) {
      std::string file = entry.path().filename().string();
      if (file.rfind("recorded_space_", 0) == 0 && entry.path().extension() == ".jsonl")
        recordings.push_back(entry.path().string());
    }
  std::sort(recordings.begin(), recordings.end());

  std::printf(
      "median over %llu seeds of (best cost found / optimum) after N evaluations; 1.0000 = optimum; %zu "
      "configurations asked ahead of the reports%s; timing noise %g (relative standard deviation)\n",
      static_cast<unsigned long long>(kSeeds), lookahead, from_a_start ? "; each run from a given start" : "",
      noise_sigma);
  if (!surrogate_args.empty()) {
#ifdef MDH_TUNING_QUALITY_WITH_MDH
    report(surrogate(surrogate_args[0], surrogate_args[1], surrogate_args[2]), techniques);
    return 0;
#else
    std::fprintf(stderr, "--surrogate needs the build with mdh's tuning space\n");
    return 2;
#endif
  }
  if (!recorded_only) {
    auto grid = std::make_shared<tuner::SearchSpace>(grid_space());
    report(synthetic("grid: bowl", grid, grid_bowl), techniques);
    report(synthetic("grid: Rosenbrock valley", grid, grid_valley), techniques);
    report(synthetic("grid: rugged (bowl x noise)", grid, grid_rugged), techniques);
    report(synthetic("grid: bowl with 40% failing configurations", grid, grid_bowl, 0.4), techniques);
    report(synthetic("xgemm M=32: analytic GEMM model", std::make_shared<tuner::SearchSpace>(xgemm_space(32)),
                     xgemm_model),
           techniques);
  }
  for (const std::string& path : recordings) {
    auto recorded = std::make_shared<tuner::RecordedSpace>(tuner::load_recorded_space(path));
    Landscape landscape{"recorded " + std::filesystem::path(path).filename().string(),
                        std::make_shared<tuner::SearchSpace>(recorded->parameters), nullptr, 0};
    landscape.evaluate = [recorded](const tuner::Configuration& c) {
      return tuner::RecordedCostFunction(*recorded).evaluate(c);
    };
    if (!recorded->best) {
      std::printf("\n%s: every configuration failed, skipped\n", landscape.name.c_str());
      continue;
    }
    landscape.optimum = *recorded->best;
    report(landscape, techniques);
  }
  if (recordings.empty()) std::printf("\n(no recorded spaces in %s)\n", MDH_TEST_DATA_DIR);
  return 0;
}
