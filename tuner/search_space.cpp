// Group detection (union-find over declared reads), parallel tree generation, and the mixed-radix product.
#include "tuner/search_space.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <numeric>
#include <thread>

#include "mdh/error.h"

namespace mdh::tuner {
namespace {

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

SearchSpace::SearchSpace(std::vector<Parameter> parameters, unsigned threads) {
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
  auto work = [&] {
    for (size_t g = next_group++; g < trees_.size(); g = next_group++)
      trees_[g] = GroupTree::build(std::move(group_parameters[g]), per_group);
  };
  std::vector<std::thread> pool;
  const unsigned workers = std::min<unsigned>(threads, static_cast<unsigned>(trees_.size()));
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();

  size_ = BigUnsigned(1);
  for (const GroupTree& tree : trees_) size_ *= BigUnsigned(tree.leaf_count());
  if (size_.is_zero()) throw UserError("the search space has no valid configuration: the constraints exclude all");
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
  for (size_t g = trees_.size(); g-- > 0;) point[g] = index.divide_by(trees_[g].leaf_count());
  return point;
}

Configuration SearchSpace::configuration(const Point& point) const {
  std::vector<int64_t> values(parameters_->size());
  std::vector<uint32_t> path;
  for (size_t g = 0; g < trees_.size(); ++g) {
    path.assign(group_members_[g].size(), 0);
    trees_[g].path_of_leaf(point[g], path);
    for (size_t k = 0; k < path.size(); ++k) {
      size_t i = group_members_[g][k];
      values[i] = (*parameters_)[i].range().values()[path[k]];
    }
  }
  return Configuration(parameters_, std::move(values));
}

std::optional<Point> SearchSpace::point_of(const Configuration& configuration) const {
  Point point(trees_.size());
  std::vector<uint32_t> path;
  for (size_t g = 0; g < trees_.size(); ++g) {
    path.clear();
    for (size_t i : group_members_[g]) {
      const auto& values = (*parameters_)[i].range().values();
      auto it = std::find(values.begin(), values.end(), configuration.value(i));
      if (it == values.end()) return std::nullopt;
      path.push_back(static_cast<uint32_t>(it - values.begin()));
    }
    auto leaf = trees_[g].leaf_of_path(path);
    if (!leaf) return std::nullopt;
    point[g] = *leaf;
  }
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
      bool known = std::any_of(parameters_->begin(), parameters_->end(), [&](const Parameter& p) { return p.name() == name; });
      if (!known) throw UserError("configuration has unknown parameter '" + name + "'");
    }
  }
  Configuration configuration(parameters_, std::move(values));
  if (!point_of(configuration)) throw UserError("configuration " + json.dump() + " violates the space's constraints");
  return configuration;
}

Point SearchSpace::sample(Rng& rng) const {
  // Independent uniform leaves per tree are uniform over the product.
  Point point(trees_.size());
  for (size_t g = 0; g < trees_.size(); ++g) point[g] = rng.below(trees_[g].leaf_count());
  return point;
}

std::vector<Point> SearchSpace::neighbours(const Point& point) const {
  std::vector<Point> result;
  std::vector<std::pair<size_t, uint64_t>> in_group;
  for (size_t g = 0; g < trees_.size(); ++g) {
    in_group.clear();
    trees_[g].neighbours(point[g], in_group);
    for (const auto& [position, leaf] : in_group) {
      result.push_back(point);
      result.back()[g] = leaf;
    }
  }
  return result;
}

std::vector<double> SearchSpace::coordinates(const Point& point) const {
  std::vector<double> result(parameters_->size());
  std::vector<uint32_t> path;
  for (size_t g = 0; g < trees_.size(); ++g) {
    path.assign(group_members_[g].size(), 0);
    trees_[g].path_of_leaf(point[g], path);
    for (size_t k = 0; k < path.size(); ++k) result[group_members_[g][k]] = trees_[g].coordinate(k, path[k]);
  }
  return result;
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
  return point;
}

size_t SearchSpace::memory_bytes() const {
  size_t bytes = 0;
  for (const GroupTree& tree : trees_) bytes += tree.memory_bytes();
  return bytes;
}

}  // namespace mdh::tuner
