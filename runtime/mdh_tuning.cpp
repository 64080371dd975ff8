#include "runtime/mdh_tuning.h"

#include "codegen/tunable_kernel.h"
#include "runtime/verify_result.h"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace mdh {

KernelConfig load_config(const std::string& path, const BoundMdh& bound, const DeviceLimits& limits) {
  std::ifstream in(path);
  if (!in) throw UserError(path + ": error: cannot read the configuration file");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw UserError(path + ": error: not valid JSON: " + e.what());
  }
  if (json.is_object() && json.contains("config")) json = json["config"];
  KernelConfig config;
  try {
    config = config_from_json(bound, json);
    check_config(bound, config, limits);
  } catch (const UserError& e) {
    throw UserError(path + ": " + e.what());
  }
  return config;
}

DeviceLimits device_limits(const DeviceInfo& device) {
  DeviceLimits limits;
  limits.max_work_group_size = device.max_work_group_size;
  for (size_t d = 0; d < 3; ++d)
    limits.max_work_item_sizes[d] = d < device.max_work_item_sizes.size() ? device.max_work_item_sizes[d] : 1;
  limits.local_mem_bytes = device.local_mem_bytes;
  limits.max_alloc_bytes = device.max_alloc_bytes;
  limits.compute_units = device.compute_units;
  limits.nvidia_driver = is_nvidia_platform(device.platform_name);
  return limits;
}

namespace {

// Sizes the tuner tries in a large interval: powers of two and three times powers of two (the tile shapes that map
// well onto SIMD lanes, warps and cache lines), and the interval's ends.
std::set<int64_t> smooth_sizes(int64_t lo, int64_t hi) {
  std::set<int64_t> out{lo, hi};
  for (int64_t p = 1; p <= hi; p *= 2) {
    if (p >= lo) out.insert(p);
    if (3 * p >= lo && 3 * p <= hi) out.insert(3 * p);
  }
  return out;
}

std::vector<int64_t> ascending(const std::set<int64_t>& values) { return {values.begin(), values.end()}; }

}  // namespace

std::vector<std::vector<int64_t>> search_values(const TuningSpace& space) {
  std::vector<std::vector<int64_t>> values(space.parameters.size());
  // Per dimension (the suffix after the family name), the LT and PT candidates, for the derived NUM_WI/NUM_WG ones.
  std::map<std::string, std::vector<int64_t>> lt_values, pt_values;
  auto dimension_of = [](const TuningParameter& p) { return p.name.substr(p.family.size() + 1); };
  for (size_t k = 0; k < space.parameters.size(); ++k) {
    const TuningParameter& p = space.parameters[k];
    if (!p.is_interval) {
      values[k] = p.values;
    } else if (p.range_size() <= kFullIntervalLimit) {
      for (int64_t v = p.interval_lo; v <= p.interval_hi; ++v) values[k].push_back(v);
    } else {
      std::set<int64_t> candidates = smooth_sizes(p.interval_lo, p.interval_hi);
      // The sizes that make one pass cover a dimension exactly: NUM_WG = ceil(extent / LT), NUM_WI = ceil(LT / PT).
      if (p.family == "NUM_WG" && lt_values.count(dimension_of(p)))
        for (int64_t lt : lt_values[dimension_of(p)])
          if (int64_t v = (p.interval_hi + lt - 1) / lt; v >= p.interval_lo && v <= p.interval_hi) candidates.insert(v);
      if (p.family == "NUM_WI" && lt_values.count(dimension_of(p)))
        for (int64_t lt : lt_values[dimension_of(p)])
          for (int64_t pt : pt_values[dimension_of(p)])
            if (int64_t v = (lt + pt - 1) / pt; v >= p.interval_lo && v <= p.interval_hi) candidates.insert(v);
      values[k] = ascending(candidates);
    }
    if (p.family == "LT_SIZE") lt_values[dimension_of(p)] = values[k];
    if (p.family == "PT_SIZE") pt_values[dimension_of(p)] = values[k];
  }
  return values;
}

tuner::SearchSpace make_search_space(const TuningSpace& space, unsigned threads) {
  const size_t n = space.parameters.size();
  const std::vector<std::vector<int64_t>> candidates = search_values(space);
  std::vector<tuner::Parameter> parameters;
  parameters.reserve(n);
  for (size_t k = 0; k < n; ++k)
    parameters.push_back(tuner::Parameter::integer(space.parameters[k].name, tuner::Range::set(candidates[k])));
  // The codegen predicates read a whole assignment; fill exactly the parameters the constraint declares (the
  // others 0). Tree generation calls them from several threads, hence one buffer per thread, reused (assign
  // within its capacity does not allocate).
  auto assignment_buffer = [n]() -> Assignment& {
    thread_local Assignment buffer;
    buffer.assign(n, 0);
    return buffer;
  };
  std::vector<tuner::GlobalConstraint> global_constraints;
  for (const TuningConstraint& c : space.constraints) {
    const int owner = c.last_read();
    MDH_INTERNAL_ASSERT(owner >= 0 && static_cast<size_t>(owner) < n, "constraint without reads: " + c.description);
    auto holds = c.holds;
    // A constraint across parameter groups (work-items of all dimensions, the NDRange, memory) is checked per
    // configuration: in a tree it would merge every group it reads, and one tree over all parameters is
    // astronomically large.
    bool across_groups = false;
    for (int r : c.reads) across_groups = across_groups || space.parameters[r].group != space.parameters[owner].group;
    if (across_groups) {
      std::vector<std::string> names;
      for (int r : c.reads) names.push_back(space.parameters[r].name);
      global_constraints.push_back({c.description, std::move(names),
                                    [holds, reads = c.reads, assignment_buffer](std::span<const int64_t> values) {
                                      Assignment& a = assignment_buffer();
                                      for (size_t k = 0; k < reads.size(); ++k) a[reads[k]] = values[k];
                                      return holds(a);
                                    }});
      continue;
    }
    std::vector<int> others;
    std::vector<std::string> names;
    for (int r : c.reads)
      if (r != owner) others.push_back(r), names.push_back(space.parameters[r].name);
    parameters[owner].constrain(names, [holds, owner, others, assignment_buffer](int64_t value,
                                                                                 std::span<const int64_t> reads) {
      Assignment& a = assignment_buffer();
      a[owner] = value;
      for (size_t k = 0; k < others.size(); ++k) a[others[k]] = reads[k];
      return holds(a);
    });
  }
  return tuner::SearchSpace(std::move(parameters), std::move(global_constraints), threads);
}

KernelConfig kernel_config_of(const BoundMdh& bound, const TuningSpace& space, const tuner::Configuration& configuration) {
  MDH_INTERNAL_ASSERT(configuration.size() == space.parameters.size(), "configuration of another space");
  return config_from_assignment(bound, space, configuration.values());
}

MdHomCostFunction::MdHomCostFunction(MdHomRun& run, std::shared_ptr<const TuningSpace> space, DeviceLimits limits,
                                     CostSettings settings)
    : run_(run), space_(std::move(space)), limits_(limits), settings_(settings) {}

tuner::EvaluationResult MdHomCostFunction::evaluate(const tuner::Configuration& configuration) {
  return evaluate(kernel_config_of(run_.bound(), *space_, configuration));
}

tuner::EvaluationResult MdHomCostFunction::evaluate(const KernelConfig& config) {
  using tuner::EvaluationResult;
  using tuner::EvaluationStatus;
  // Each stage's user errors mean something different for the tuner: classify by where they come from.
  LaunchPlan plan;
  try {
    plan = generate_tunable_kernel(run_.bound(), config, limits_);
  } catch (const UserError& e) {
    return EvaluationResult::failed(EvaluationStatus::constraint, e.what());
  }
  try {
    run_.context().program(plan.source, plan.build_options);
  } catch (const UserError& e) {
    std::string log = e.what();
    if (log.size() > 2000) log = log.substr(0, 2000) + "\n...";
    return EvaluationResult::failed(EvaluationStatus::build_error, log);
  }
  PlanTiming timing;
  try {
    run_.run(plan, 0, 1);
    VerifyReport report = verify_result(run_.read_output(), run_.reference_output(), *run_.bound().mdh,
                                        run_.bound().reduction_size(), 3);
    if (!report.passed) return EvaluationResult::failed(EvaluationStatus::wrong_result, report.summary());
    timing = run_.run(plan, settings_.warmups, settings_.repetitions);
  } catch (const UserError& e) {
    return EvaluationResult::failed(EvaluationStatus::launch_error, e.what());
  }
  return EvaluationResult::ok(static_cast<double>(timing.median_kernel_ns()) * 1e-9);
}

}  // namespace mdh
