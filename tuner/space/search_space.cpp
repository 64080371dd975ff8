// Group detection (union-find over declared reads), parallel tree generation, the mixed-radix product, and the
// per-configuration checks of global constraints.
#include "tuner/space/search_space.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>

#include "support/error.h"

namespace mdh::tuner {
namespace {

// Each thread keeps one set of check buffers, so checks allocate nothing once warm. A predicate that calls back
// into a space finds them in use and gets fresh ones.
struct ScratchSlot {
  CheckScratch scratch;
  bool busy = false;
};
thread_local ScratchSlot t_scratch_slot;

class ScratchLease {
 public:
  explicit ScratchLease(size_t parameter_count) {
    if (!t_scratch_slot.busy) {
      t_scratch_slot.busy = true;
      scratch_ = &t_scratch_slot.scratch;
    }
    if (scratch_->values.size() < parameter_count) scratch_->values.resize(parameter_count);
  }
  ~ScratchLease() {
    if (scratch_ == &t_scratch_slot.scratch) t_scratch_slot.busy = false;
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  CheckScratch& operator*() { return *scratch_; }

 private:
  CheckScratch own_;
  CheckScratch* scratch_ = &own_;
};

// Nearest-first search for a valid point around an invalid closest candidate: at most this many rounds of
// one-parameter changes, expanding the nearest candidates of each round, checking at most this many in all.
constexpr int kNearestRounds = 4;
constexpr size_t kNearestBeam = 8;
constexpr size_t kNearestChecks = 20'000;
// Candidates drawn to find which constraints fail when sampling finds nothing valid.
constexpr uint64_t kDiagnosisCandidates = 10'000;

// Mixes 64 bits into a seed (SplitMix64 finaliser).
uint64_t derive_seed_from_bits(uint64_t seed, uint64_t bits) {
  uint64_t z = seed ^ (bits + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class UnionFind {
 public:
  explicit UnionFind(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), size_t{0}); }
  size_t find(size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void unite(size_t a, size_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<size_t> parent_;
};

}  // namespace

SearchSpace::SearchSpace(std::vector<Parameter> parameters, unsigned threads)
    : SearchSpace(std::move(parameters), {}, threads) {}

SearchSpace::SearchSpace(std::vector<Parameter> parameters, std::vector<GlobalConstraint> global_constraints,
                         unsigned threads) {
  if (parameters.empty()) throw UserError("a search space needs at least one parameter");
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  parameters_ = std::make_shared<const std::vector<Parameter>>(std::move(parameters));
  const auto& params = *parameters_;

  // 1. Resolve reads to declaration indices; a read must name an earlier parameter.
  std::map<std::string, size_t> index_of_name;
  std::vector<std::vector<std::vector<size_t>>> reads(params.size());
  UnionFind groups(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    for (const Constraint& constraint : params[i].constraints()) {
      std::vector<size_t> resolved;
      for (const std::string& name : constraint.reads) {
        auto it = index_of_name.find(name);
        if (it == index_of_name.end())
          throw UserError("constraint of '" + params[i].name() + "' reads '" + name +
                          "', which is not a parameter declared before it");
        resolved.push_back(it->second);
        groups.unite(i, it->second);
      }
      reads[i].push_back(std::move(resolved));
    }
    if (!index_of_name.emplace(params[i].name(), i).second)
      throw UserError("tuning parameter '" + params[i].name() + "' is declared twice");
  }

  // 2. Groups in order of their first parameter; reads become positions within the group.
  std::map<size_t, size_t> group_of_root;
  for (size_t i = 0; i < params.size(); ++i) {
    auto [it, inserted] = group_of_root.emplace(groups.find(i), group_members_.size());
    if (inserted) group_members_.emplace_back();
    group_members_[it->second].push_back(i);
  }
  std::vector<std::vector<GroupParameter>> group_parameters(group_members_.size());
  for (size_t g = 0; g < group_members_.size(); ++g) {
    for (size_t i : group_members_[g]) {
      GroupParameter gp;
      gp.parameter = &params[i];
      for (const auto& constraint_reads : reads[i]) {
        std::vector<size_t> positions;
        for (size_t r : constraint_reads)
          positions.push_back(static_cast<size_t>(
              std::lower_bound(group_members_[g].begin(), group_members_[g].end(), r) - group_members_[g].begin()));
        gp.constraint_reads.push_back(std::move(positions));
      }
      group_parameters[g].push_back(std::move(gp));
    }
  }

  // 3. Generate the trees, groups in parallel. Every group may also split its first level over all threads: one
  // big group beside tiny ones (Xgemm's STRM, STRN) is the common case, and the tiny ones finish at once.
  trees_.resize(group_members_.size());
  const unsigned per_group = threads;
  std::atomic<size_t> next_group{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    try {
      for (size_t g = next_group++; g < trees_.size(); g = next_group++)
        trees_[g] = GroupTree::build(std::move(group_parameters[g]), per_group);
    } catch (...) {  // a UserError (a parameter that cannot be a tree level) ends the other threads' work too
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next_group = trees_.size();
    }
  };
  std::vector<std::thread> pool;
  const unsigned workers = std::min<unsigned>(threads, static_cast<unsigned>(trees_.size()));
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);

  size_ = BigUnsigned(1);
  for (const GroupTree& tree : trees_) size_ *= BigUnsigned(tree.leaf_count());
  if (size_ == 0) throw UserError("the search space has no valid configuration: the constraints exclude all");

  // 4. Global constraints only index the groups; small spaces are counted (and checked for emptiness) at once.
  std::vector<size_t> group_of_parameter(params.size());
  for (size_t g = 0; g < group_members_.size(); ++g)
    for (size_t i : group_members_[g]) group_of_parameter[i] = g;
  globals_ = GlobalConstraintSet(std::move(global_constraints), params, group_of_parameter, trees_.size());
  // 5. Groups that global constraints tie tightly are listed together for sampling (sampling_blocks.h); used
  // only where rejecting uniform candidates would almost never find a valid one.
  if (!globals_.empty()) {
    std::vector<uint64_t> leaf_counts;
    for (const GroupTree& tree : trees_) leaf_counts.push_back(tree.leaf_count());
    ScratchLease lease(params.size());
    Point point(trees_.size(), 0);
    blocks_ = SamplingBlocks(
        leaf_counts, globals_,
        [&](size_t g, uint64_t leaf, CheckScratch& scratch) {
          point[g] = leaf;
          decode_group(point, g, scratch);
        },
        *lease);
  }
  if (globals_.empty()) {
    known_valid_size_ = size_;
  } else if (size_ <= BigUnsigned(kEagerCountLimit)) {
    known_valid_size_ = exact_valid_size(BigUnsigned(kEagerCountLimit));
    if (*known_valid_size_ == 0) {
      Rng unused(0);
      throw no_valid_configuration(unused, /*exhaustive=*/true);
    }
  }
}

BigUnsigned SearchSpace::index_of(const Point& point) const {
  MDH_INTERNAL_ASSERT(point.size() == trees_.size(), "one leaf per group");
  BigUnsigned index;
  for (size_t g = 0; g < trees_.size(); ++g) {
    index *= BigUnsigned(trees_[g].leaf_count());
    index += BigUnsigned(point[g]);
  }
  return index;
}

Point SearchSpace::point_of(BigUnsigned index) const {
  MDH_INTERNAL_ASSERT(index < size_, "configuration index out of range");
  Point point(trees_.size());
  for (size_t g = trees_.size(); g-- > 0;) {
    point[g] = static_cast<uint64_t>(index % trees_[g].leaf_count());
    index /= trees_[g].leaf_count();
  }
  return point;
}

Configuration SearchSpace::configuration(const Point& point) const {
  std::vector<int64_t> values(parameters_->size());
  std::vector<uint64_t> path;
  for (size_t g = 0; g < trees_.size(); ++g) {
    path.assign(group_members_[g].size(), 0);
    trees_[g].path_of_leaf(point[g], path);
    for (size_t k = 0; k < path.size(); ++k) {
      size_t i = group_members_[g][k];
      values[i] = (*parameters_)[i].range().value(path[k]);
    }
  }
  return Configuration(parameters_, std::move(values));
}

std::optional<Point> SearchSpace::point_of(const Configuration& configuration) const {
  Point point(trees_.size());
  std::vector<uint64_t> path;
  for (size_t g = 0; g < trees_.size(); ++g) {
    path.clear();
    for (size_t i : group_members_[g]) {
      auto index = (*parameters_)[i].range().index_of(configuration.value(i));
      if (!index) return std::nullopt;
      path.push_back(*index);
    }
    auto leaf = trees_[g].leaf_of_path(path);
    if (!leaf) return std::nullopt;
    point[g] = *leaf;
  }
  if (violated_global_constraint(configuration)) return std::nullopt;
  return point;
}

Configuration SearchSpace::configuration_from_json(const nlohmann::json& json) const {
  if (!json.is_object()) throw UserError("a configuration must be a JSON object, got " + json.dump());
  std::vector<int64_t> values;
  for (const Parameter& p : *parameters_) {
    auto it = json.find(p.name());
    if (it == json.end()) throw UserError("configuration " + json.dump() + " lacks parameter '" + p.name() + "'");
    values.push_back(p.value_from_json(*it));
  }
  if (json.size() != parameters_->size()) {
    for (const auto& [name, value] : json.items()) {
      bool known =
          std::any_of(parameters_->begin(), parameters_->end(), [&](const Parameter& p) { return p.name() == name; });
      if (!known) throw UserError("configuration has unknown parameter '" + name + "'");
    }
  }
  Configuration configuration(parameters_, std::move(values));
  if (auto violated = violated_global_constraint(configuration))
    throw UserError("configuration " + json.dump() + " violates the constraint '" + *violated + "'");
  if (!point_of(configuration)) throw UserError("configuration " + json.dump() + " violates the space's constraints");
  return configuration;
}

void SearchSpace::decode_group(const Point& point, size_t g, CheckScratch& scratch) const {
  const std::vector<size_t>& members = group_members_[g];
  scratch.path.resize(members.size());
  trees_[g].path_of_leaf(point[g], scratch.path);
  for (size_t k = 0; k < members.size(); ++k)
    scratch.values[members[k]] = (*parameters_)[members[k]].range().value(scratch.path[k]);
}

bool SearchSpace::is_valid(const Point& point, CheckScratch& scratch) const {
  if (globals_.empty()) return true;
  for (size_t g : globals_.read_groups()) decode_group(point, g, scratch);
  return globals_.first_failure(scratch.values, scratch.reads) == GlobalConstraintSet::npos;
}

bool SearchSpace::is_valid(const Point& point) const {
  MDH_INTERNAL_ASSERT(point.size() == trees_.size(), "one leaf per group");
  ScratchLease scratch(parameters_->size());
  return is_valid(point, *scratch);
}

std::optional<std::string> SearchSpace::violated_global_constraint(const Configuration& configuration) const {
  std::vector<int64_t> reads;
  size_t failed = globals_.first_failure(configuration.values(), reads);
  if (failed == GlobalConstraintSet::npos) return std::nullopt;
  return globals_.description(failed);
}

ValidSizeEstimate SearchSpace::estimate_valid_size(uint64_t samples, uint64_t seed) const {
  ValidSizeEstimate estimate;
  const double candidates = static_cast<double>(size_);
  if (globals_.empty() || samples == 0) {
    estimate.valid = estimate.low = estimate.high = candidates;
    estimate.exact = globals_.empty();
    return estimate;
  }
  ScratchLease scratch(parameters_->size());
  Rng rng(seed);
  Point point(trees_.size());
  if (blocks_.active() && blocks_.has_empty_block()) {
    estimate.samples = samples;
    return estimate;  // no valid configuration: 0 in [0, 0]
  }
  for (uint64_t s = 0; s < samples; ++s) {
    draw(rng, point);
    if (is_valid(point, *scratch)) ++estimate.valid_samples;
  }
  const double drawn_from = blocks_.active() ? static_cast<double>(blocks_.drawn_from()) : candidates;
  estimate.samples = samples;
  // Wilson score interval for the valid fraction at 95%: unlike the normal approximation it stays inside [0, 1]
  // and is informative when no or every sample is valid.
  const double n = static_cast<double>(samples), p = static_cast<double>(estimate.valid_samples) / n, z = 1.96;
  const double denominator = 1 + z * z / n;
  const double centre = (p + z * z / (2 * n)) / denominator;
  const double half_width = z * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator;
  estimate.valid = drawn_from * p;
  estimate.low = drawn_from * std::max(0.0, centre - half_width);
  estimate.high = drawn_from * std::min(1.0, centre + half_width);
  return estimate;
}

std::optional<BigUnsigned> SearchSpace::exact_valid_size(const BigUnsigned& limit) const {
  if (globals_.empty()) return size_;
  if (limit < size_) return std::nullopt;
  ScratchLease lease(parameters_->size());
  CheckScratch& scratch = *lease;
  // Mixed-radix enumeration, last group fastest; a group is decoded again only when its leaf changed.
  const std::vector<size_t>& read_groups = globals_.read_groups();
  Point point(trees_.size(), 0);
  for (size_t g : read_groups) decode_group(point, g, scratch);
  uint64_t valid = 0;
  for (;;) {
    if (globals_.first_failure(scratch.values, scratch.reads) == GlobalConstraintSet::npos) ++valid;
    size_t g = trees_.size();
    while (g-- > 0) {
      if (++point[g] < trees_[g].leaf_count()) break;
      point[g] = 0;
    }
    if (g == static_cast<size_t>(-1)) break;
    for (size_t r : read_groups)
      if (r >= g) decode_group(point, r, scratch);
  }
  return BigUnsigned(valid);
}

UserError SearchSpace::no_valid_configuration(Rng& rng, bool exhaustive) const {
  ScratchLease lease(parameters_->size());
  CheckScratch& scratch = *lease;
  const size_t constraint_count = globals_.size();
  std::vector<uint64_t> failures(constraint_count, 0);
  std::vector<char> fails;  // per candidate and constraint
  uint64_t candidates = 0;
  auto count = [&](const Point& point) {
    for (size_t g : globals_.read_groups()) decode_group(point, g, scratch);
    for (size_t c = 0; c < constraint_count; ++c) {
      const bool failed = !globals_.holds(c, scratch.values, scratch.reads);
      fails.push_back(failed ? 1 : 0);
      failures[c] += failed ? 1 : 0;
    }
    ++candidates;
  };
  Point point(trees_.size(), 0);
  if (exhaustive) {
    for (BigUnsigned index; index < size_; index += BigUnsigned(1)) count(point_of(index));
  } else {
    for (uint64_t s = 0; s < kDiagnosisCandidates; ++s) {
      for (size_t g = 0; g < trees_.size(); ++g) point[g] = rng.below(trees_[g].leaf_count());
      count(point);
    }
  }
  // Name the constraints that explain the failures (greedy cover): the one failing for the most candidates, then
  // the one failing for most of the candidates it leaves, and so on, at most three.
  std::vector<char> covered(candidates, 0);
  std::string listed;
  for (int named = 0; named < 3; ++named) {
    size_t best = GlobalConstraintSet::npos;
    uint64_t best_count = 0;
    for (size_t c = 0; c < constraint_count; ++c) {
      uint64_t uncovered = 0;
      for (uint64_t k = 0; k < candidates; ++k) uncovered += !covered[k] && fails[k * constraint_count + c] ? 1 : 0;
      if (uncovered > best_count) best = c, best_count = uncovered;
    }
    if (best == GlobalConstraintSet::npos) break;
    for (uint64_t k = 0; k < candidates; ++k)
      if (fails[k * constraint_count + best]) covered[k] = 1;
    const int percent =
        static_cast<int>(std::floor(100.0 * static_cast<double>(failures[best]) / static_cast<double>(candidates)));
    listed += (listed.empty() ? "" : "; ") + globals_.description(best) + " (fails for " + std::to_string(percent) +
              "% of " + to_grouped_decimal(candidates) + " candidates)";
  }
  return UserError(std::string("the search space has ") + (exhaustive ? "no" : "(almost) no") +
                   " configuration satisfying: " + listed);
}

Point SearchSpace::sample(Rng& rng) const {
  // Independent uniform leaves per tree are uniform over the product; rejecting the invalid ones keeps the
  // accepted points uniform over the valid configurations.
  Point point(trees_.size());
  if (globals_.empty()) {
    for (size_t g = 0; g < trees_.size(); ++g) point[g] = rng.below(trees_[g].leaf_count());
    return point;
  }
  if (blocks_.active() && blocks_.has_empty_block()) throw no_valid_configuration(rng, /*exhaustive=*/false);
  ScratchLease scratch(parameters_->size());
  for (uint64_t attempt = 0; attempt < kMaxSampleAttempts; ++attempt) {
    draw(rng, point);
    if (is_valid(point, *scratch)) return point;
  }
  // Where the blocks' own constraints pass often enough for plain rejection (inactive blocks) but the others make
  // valid candidates rarer than one in kMaxSampleAttempts, draws through the blocks, uniform too, still find one;
  // a space that rejection serves keeps its draws (journals resume), and an empty one its diagnosis.
  const Rng after_rejection = rng;
  if (!blocks_.active() && blocks_.can_draw())
    for (uint64_t attempt = 0; attempt < kMaxSampleAttempts; ++attempt) {
      blocks_.draw(rng, point);
      if (is_valid(point, *scratch)) return point;
    }
  rng = after_rejection;
  throw no_valid_configuration(rng, /*exhaustive=*/false);
}

void SearchSpace::draw(Rng& rng, Point& point) const {
  if (blocks_.active()) {
    blocks_.draw(rng, point);
    return;
  }
  for (size_t g = 0; g < trees_.size(); ++g) point[g] = rng.below(trees_[g].leaf_count());
}

void SearchSpace::candidate_neighbours(const Point& point, std::vector<Point>& out) const {
  std::vector<std::pair<size_t, uint64_t>> in_group;
  for (size_t g = 0; g < trees_.size(); ++g) {
    in_group.clear();
    trees_[g].neighbours(point[g], in_group);
    for (const auto& [position, leaf] : in_group) {
      out.push_back(point);
      out.back()[g] = leaf;
    }
  }
}

std::optional<Point> SearchSpace::random_neighbour(const Point& point, Rng& rng) const {
  std::vector<Point> candidates;
  candidate_neighbours(point, candidates);
  ScratchLease scratch(parameters_->size());
  // A lazy Fisher-Yates shuffle: the first valid candidate of a uniformly random order is uniform among the valid.
  for (size_t k = 0; k < candidates.size(); ++k) {
    std::swap(candidates[k], candidates[k + rng.below(candidates.size() - k)]);
    if (is_valid(candidates[k], *scratch)) return std::move(candidates[k]);
  }
  return std::nullopt;
}

std::vector<Point> SearchSpace::neighbours(const Point& point) const {
  std::vector<Point> result;
  if (globals_.empty()) {
    candidate_neighbours(point, result);
    return result;
  }
  // A neighbour changes one group: only the constraints reading that group can change their verdict, so the
  // others are checked once at `point`.
  ScratchLease lease(parameters_->size());
  CheckScratch& scratch = *lease;
  for (size_t g : globals_.read_groups()) decode_group(point, g, scratch);
  std::vector<char> holds_at_point(globals_.size());
  size_t failing_at_point = 0;
  for (size_t c = 0; c < globals_.size(); ++c) {
    holds_at_point[c] = globals_.holds(c, scratch.values, scratch.reads);
    failing_at_point += holds_at_point[c] ? 0 : 1;
  }
  std::vector<std::pair<size_t, uint64_t>> in_group;
  Point neighbour = point;
  for (size_t g = 0; g < trees_.size(); ++g) {
    const std::vector<size_t>& reading = globals_.constraints_reading(g);
    size_t failing_elsewhere = failing_at_point;
    for (size_t c : reading) failing_elsewhere -= holds_at_point[c] ? 0 : 1;
    if (failing_elsewhere > 0) continue;
    in_group.clear();
    trees_[g].neighbours(point[g], in_group);
    for (const auto& [position, leaf] : in_group) {
      neighbour[g] = leaf;
      bool valid = true;
      if (!reading.empty()) {
        decode_group(neighbour, g, scratch);
        for (size_t c : reading)
          if (!globals_.holds(c, scratch.values, scratch.reads)) {
            valid = false;
            break;
          }
      }
      if (valid) result.push_back(neighbour);
    }
    neighbour[g] = point[g];
    if (!reading.empty()) decode_group(point, g, scratch);
  }
  return result;
}

std::vector<double> SearchSpace::coordinates(const Point& point) const {
  std::vector<double> result(parameters_->size());
  std::vector<uint64_t> path;
  for (size_t g = 0; g < trees_.size(); ++g) {
    path.assign(group_members_[g].size(), 0);
    trees_[g].path_of_leaf(point[g], path);
    for (size_t k = 0; k < path.size(); ++k) result[group_members_[g][k]] = trees_[g].coordinate(k, path[k]);
  }
  return result;
}

double SearchSpace::squared_distance(const Point& point, std::span<const double> coordinates,
                                     CheckScratch& scratch) const {
  double distance = 0;
  for (size_t g = 0; g < trees_.size(); ++g) {
    scratch.path.resize(group_members_[g].size());
    trees_[g].path_of_leaf(point[g], scratch.path);
    for (size_t k = 0; k < scratch.path.size(); ++k) {
      const double d = trees_[g].coordinate(k, scratch.path[k]) - coordinates[group_members_[g][k]];
      distance += d * d;
    }
  }
  return distance;
}

std::optional<Point> SearchSpace::nearest_valid_around(const Point& start, std::span<const double> coordinates) const {
  ScratchLease lease(parameters_->size());
  CheckScratch& scratch = *lease;
  std::set<Point> seen{start};
  std::vector<Point> beam{start}, around;
  std::vector<std::pair<double, Point>> ranked;
  size_t checks = 0;
  for (int round = 0; round < kNearestRounds && checks < kNearestChecks; ++round) {
    around.clear();
    for (const Point& p : beam) candidate_neighbours(p, around);
    ranked.clear();
    for (Point& p : around)
      if (seen.insert(p).second) ranked.emplace_back(squared_distance(p, coordinates, scratch), std::move(p));
    // Nearest first; equal distances by point, so the result does not depend on the expansion order.
    std::sort(ranked.begin(), ranked.end());
    for (const auto& [distance, p] : ranked) {
      if (checks++ >= kNearestChecks) break;
      if (is_valid(p, scratch)) return p;
    }
    beam.clear();
    for (size_t k = 0; k < ranked.size() && k < kNearestBeam; ++k) beam.push_back(ranked[k].second);
    if (beam.empty()) break;
  }
  return std::nullopt;
}

Point SearchSpace::closest(std::span<const double> coordinates) const {
  MDH_INTERNAL_ASSERT(coordinates.size() == parameters_->size(), "one coordinate per parameter");
  Point point(trees_.size());
  std::vector<double> in_group;
  for (size_t g = 0; g < trees_.size(); ++g) {
    in_group.clear();
    for (size_t i : group_members_[g]) in_group.push_back(coordinates[i]);
    point[g] = trees_[g].closest(in_group);
  }
  if (globals_.empty() || is_valid(point)) return point;
  if (auto nearest = nearest_valid_around(point, coordinates)) return *nearest;
  // Nothing valid nearby: a random restart, seeded from the coordinates so the answer stays deterministic.
  uint64_t seed = 0x6a09e667f3bcc909ull;
  for (double c : coordinates) seed = derive_seed_from_bits(seed, std::bit_cast<uint64_t>(c));
  Rng rng(seed);
  return sample(rng);
}

size_t SearchSpace::memory_bytes() const {
  size_t bytes = 0;
  for (const GroupTree& tree : trees_) bytes += tree.memory_bytes();
  return bytes;
}

}  // namespace mdh::tuner
