// Depth-first generation of a group tree with memoised constraints, and navigation of the flat layout.
#include "tuner/group_tree.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <thread>
#include <unordered_map>

#include "support/error.h"

namespace mdh::tuner {
namespace {

// Up to this many value combinations of the last parameters are stored as the bits of one mask.
constexpr uint64_t kMaxTailCombinations = 64;

struct ReadTupleHash {
  size_t operator()(const std::vector<int64_t>& key) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t v : key) {
      h ^= static_cast<uint64_t>(v);
      h *= 1099511628211ull;
      h ^= h >> 29;
    }
    return static_cast<size_t>(h);
  }
};

// The part of a tree that one thread generates: the subtrees of some consecutive first-level values.
struct Chunk {
  std::vector<GroupTree::Level> levels;
  std::vector<uint64_t> masks;
  uint64_t leaves = 0;
};

unsigned select_bit(uint64_t mask, uint64_t k) {
  for (uint64_t i = 0; i < k; ++i) mask &= mask - 1;
  return static_cast<unsigned>(std::countr_zero(mask));
}

template <typename T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

// Generates chunks. A parameter's valid values depend only on the values it reads, so they are memoised per read
// tuple: the generation cost then follows the number of nodes, not nodes times range size.
class Builder {
 public:
  Builder(const std::vector<GroupParameter>& parameters, size_t stored_levels, const std::vector<uint32_t>& tail_radix)
      : parameters_(parameters),
        stored_levels_(stored_levels),
        tail_radix_(tail_radix),
        path_(parameters.size(), 0),
        key_reads_(parameters.size()),
        memo_(parameters.size()),
        last_key_(parameters.size()),
        last_result_(parameters.size(), nullptr) {
    for (size_t p = 0; p < parameters.size(); ++p) {
      for (const auto& reads : parameters[p].constraint_reads)
        key_reads_[p].insert(key_reads_[p].end(), reads.begin(), reads.end());
      std::sort(key_reads_[p].begin(), key_reads_[p].end());
      key_reads_[p].erase(std::unique(key_reads_[p].begin(), key_reads_[p].end()), key_reads_[p].end());
      if (p >= stored_levels)
        for (size_t r : key_reads_[p])
          if (r < stored_levels) tail_key_reads_.push_back(r);
    }
    std::sort(tail_key_reads_.begin(), tail_key_reads_.end());
    tail_key_reads_.erase(std::unique(tail_key_reads_.begin(), tail_key_reads_.end()), tail_key_reads_.end());
  }

  // The valid range indices of parameter `position` given the values of the parameters before it in path_.
  const std::vector<uint32_t>& valid_values(size_t position) {
    std::vector<int64_t>& key = key_buffer_;
    key.clear();
    for (size_t r : key_reads_[position]) key.push_back(path_[r]);
    if (last_result_[position] != nullptr && key == last_key_[position]) return *last_result_[position];
    auto& memo = memo_[position];
    auto it = memo.find(key);
    if (it == memo.end()) {
      std::vector<uint32_t> valid;
      const auto& values = parameters_[position].parameter->range().values();
      for (uint32_t ri = 0; ri < values.size(); ++ri) {
        const Verdict verdict = admits(position, values[ri]);
        if (verdict == Verdict::admitted) valid.push_back(ri);
        if (verdict == Verdict::rejected_with_all_later) break;
      }
      it = memo.emplace(key, std::move(valid)).first;
    }
    last_key_[position] = key;
    last_result_[position] = &it->second;
    return it->second;
  }

  void build(std::span<const uint32_t> root_candidates, Chunk& out) {
    out_ = &out;
    out.levels.resize(stored_levels_);
    descend(0, root_candidates);
  }

  uint64_t tail_mask() {
    std::vector<int64_t>& key = key_buffer_;
    key.clear();
    for (size_t r : tail_key_reads_) key.push_back(path_[r]);
    if (has_last_tail_ && key == last_tail_key_) return last_tail_mask_;
    auto it = tail_memo_.find(key);
    if (it == tail_memo_.end()) {
      uint64_t mask = 0;
      tail_search(0, 0, mask);
      it = tail_memo_.emplace(key, mask).first;
    }
    last_tail_key_ = key;
    last_tail_mask_ = it->second;
    has_last_tail_ = true;
    return it->second;
  }

 private:
  enum class Verdict { admitted, rejected, rejected_with_all_later };
  Verdict admits(size_t position, int64_t value) {
    const GroupParameter& gp = parameters_[position];
    const auto& constraints = gp.parameter->constraints();
    // Prefix constraints first: when one fails, it settles every later value too.
    for (bool prefix : {true, false}) {
      for (size_t c = 0; c < constraints.size(); ++c) {
        if (constraints[c].holds_for_a_prefix != prefix) continue;
        read_buffer_.clear();
        for (size_t r : gp.constraint_reads[c]) read_buffer_.push_back(path_[r]);
        if (!constraints[c].predicate(value, read_buffer_))
          return prefix ? Verdict::rejected_with_all_later : Verdict::rejected;
      }
    }
    return Verdict::admitted;
  }

  void descend(size_t level, std::span<const uint32_t> candidates) {
    GroupTree::Level& nodes = out_->levels[level];
    const auto& values = parameters_[level].parameter->range().values();
    const bool last_stored = level + 1 == stored_levels_;
    for (uint32_t ri : candidates) {
      path_[level] = values[ri];
      const uint64_t leaves_before = out_->leaves;
      if (last_stored) {
        uint64_t mask = tail_radix_.empty() ? 1 : tail_mask();
        if (mask == 0) continue;
        nodes.value.push_back(ri);
        nodes.leaf_begin.push_back(leaves_before);
        if (!tail_radix_.empty()) out_->masks.push_back(mask);
        out_->leaves += static_cast<uint64_t>(std::popcount(mask));
      } else {
        const std::vector<uint32_t>& children = valid_values(level + 1);
        if (children.empty()) continue;
        nodes.value.push_back(ri);
        MDH_INTERNAL_ASSERT(out_->levels[level + 1].value.size() < UINT32_MAX, "tree level exceeds 2^32 nodes");
        nodes.child_begin.push_back(static_cast<uint32_t>(out_->levels[level + 1].value.size()));
        nodes.leaf_begin.push_back(leaves_before);
        descend(level + 1, children);
        if (out_->leaves == leaves_before) {  // every child was pruned, so the node goes too
          nodes.value.pop_back();
          nodes.child_begin.pop_back();
          nodes.leaf_begin.pop_back();
        }
      }
    }
  }

  void tail_search(size_t t, uint64_t bit_prefix, uint64_t& mask) {
    const size_t position = stored_levels_ + t;
    const auto& values = parameters_[position].parameter->range().values();
    for (uint32_t ri = 0; ri < values.size(); ++ri) {
      path_[position] = values[ri];
      const Verdict verdict = admits(position, values[ri]);
      if (verdict == Verdict::rejected_with_all_later) break;
      if (verdict == Verdict::rejected) continue;
      uint64_t bit = bit_prefix * tail_radix_[t] + ri;
      if (t + 1 == tail_radix_.size())
        mask |= uint64_t{1} << bit;
      else
        tail_search(t + 1, bit, mask);
    }
  }

  const std::vector<GroupParameter>& parameters_;
  size_t stored_levels_;
  const std::vector<uint32_t>& tail_radix_;
  std::vector<int64_t> path_;
  std::vector<std::vector<size_t>> key_reads_;
  std::vector<std::unordered_map<std::vector<int64_t>, std::vector<uint32_t>, ReadTupleHash>> memo_;
  std::vector<std::vector<int64_t>> last_key_;
  std::vector<const std::vector<uint32_t>*> last_result_;
  std::vector<size_t> tail_key_reads_;
  std::unordered_map<std::vector<int64_t>, uint64_t, ReadTupleHash> tail_memo_;
  std::vector<int64_t> last_tail_key_;
  uint64_t last_tail_mask_ = 0;
  bool has_last_tail_ = false;
  std::vector<int64_t> key_buffer_;
  std::vector<int64_t> read_buffer_;
  Chunk* out_ = nullptr;
};

// Concatenates chunks level by level, shifting child and leaf offsets, and frees each chunk level once copied so
// that the peak stays near the final size.
void merge_chunks(std::vector<Chunk>& chunks, size_t stored_levels, std::vector<GroupTree::Level>& levels,
                  std::vector<uint64_t>& masks, uint64_t& leaf_count) {
  levels.assign(stored_levels, {});
  std::vector<uint64_t> leaf_offset(chunks.size() + 1, 0);
  for (size_t c = 0; c < chunks.size(); ++c) leaf_offset[c + 1] = leaf_offset[c] + chunks[c].leaves;
  leaf_count = leaf_offset.back();
  for (size_t l = 0; l < stored_levels; ++l) {
    const bool has_children = l + 1 < stored_levels;
    size_t total = 0;
    for (const Chunk& chunk : chunks) total += chunk.levels[l].value.size();
    GroupTree::Level& level = levels[l];
    level.value.reserve(total);
    level.leaf_begin.reserve(total + 1);
    if (has_children) level.child_begin.reserve(total + 1);
    uint64_t child_offset = 0;
    for (size_t c = 0; c < chunks.size(); ++c) {
      GroupTree::Level& part = chunks[c].levels[l];
      level.value.insert(level.value.end(), part.value.begin(), part.value.end());
      for (uint64_t begin : part.leaf_begin) level.leaf_begin.push_back(begin + leaf_offset[c]);
      if (has_children) {
        for (uint32_t begin : part.child_begin)
          level.child_begin.push_back(static_cast<uint32_t>(begin + child_offset));
        child_offset += chunks[c].levels[l + 1].value.size();
      }
      release(part.value);
      release(part.leaf_begin);
      release(part.child_begin);
    }
    level.leaf_begin.push_back(leaf_count);
    if (has_children) {
      MDH_INTERNAL_ASSERT(child_offset < UINT32_MAX, "tree level exceeds 2^32 nodes");
      level.child_begin.push_back(static_cast<uint32_t>(child_offset));
    }
  }
  size_t mask_total = 0;
  for (const Chunk& chunk : chunks) mask_total += chunk.masks.size();
  masks.reserve(mask_total);
  for (Chunk& chunk : chunks) {
    masks.insert(masks.end(), chunk.masks.begin(), chunk.masks.end());
    release(chunk.masks);
  }
}

}  // namespace

GroupTree GroupTree::build(std::vector<GroupParameter> parameters, unsigned threads) {
  MDH_INTERNAL_ASSERT(!parameters.empty(), "a group has at least one parameter");
  GroupTree tree;
  tree.parameters_ = std::move(parameters);
  const size_t count = tree.parameters_.size();
  // 1. Choose the tail: the longest suffix of parameters whose value combinations fit into one mask.
  size_t stored = count;
  uint64_t combinations = 1;
  while (stored > 0 && combinations * tree.parameters_[stored - 1].parameter->range().size() <= kMaxTailCombinations) {
    combinations *= tree.parameters_[stored - 1].parameter->range().size();
    --stored;
  }
  tree.stored_levels_ = stored;
  for (size_t p = stored; p < count; ++p)
    tree.tail_radix_.push_back(static_cast<uint32_t>(tree.parameters_[p].parameter->range().size()));

  if (stored == 0) {
    // 2a. Everything fits into a single mask.
    Builder builder(tree.parameters_, 0, tree.tail_radix_);
    uint64_t mask = builder.tail_mask();
    tree.tail_masks_.push_back(mask);
    tree.leaf_count_ = static_cast<uint64_t>(std::popcount(mask));
  } else {
    // 2b. Split the first level's valid values across threads; each value's subtree is one chunk.
    std::vector<uint32_t> roots = Builder(tree.parameters_, stored, tree.tail_radix_).valid_values(0);
    std::vector<Chunk> chunks(roots.size());
    std::atomic<size_t> next_root{0};
    auto work = [&] {
      Builder builder(tree.parameters_, stored, tree.tail_radix_);
      for (size_t r = next_root++; r < roots.size(); r = next_root++)
        builder.build(std::span<const uint32_t>(&roots[r], 1), chunks[r]);
    };
    const unsigned workers = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(roots.size())));
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    merge_chunks(chunks, stored, tree.levels_, tree.tail_masks_, tree.leaf_count_);
  }
  tree.collect_used_values();
  return tree;
}

void GroupTree::collect_used_values() {
  const size_t count = parameters_.size();
  std::vector<std::vector<char>> used(count);
  for (size_t p = 0; p < count; ++p) used[p].assign(parameters_[p].parameter->range().size(), 0);
  for (size_t l = 0; l < stored_levels_; ++l)
    for (uint32_t ri : levels_[l].value) used[l][ri] = 1;
  uint64_t any_mask = 0;
  for (uint64_t mask : tail_masks_) any_mask |= mask;
  std::vector<uint32_t> digits(count);
  for (uint64_t m = any_mask; m != 0; m &= m - 1) {
    decode_tail(static_cast<unsigned>(std::countr_zero(m)), digits);
    for (size_t p = stored_levels_; p < count; ++p) used[p][digits[p]] = 1;
  }
  used_values_.assign(count, {});
  rank_of_value_.assign(count, {});
  for (size_t p = 0; p < count; ++p) {
    rank_of_value_[p].assign(used[p].size(), -1);
    for (uint32_t ri = 0; ri < used[p].size(); ++ri)
      if (used[p][ri]) {
        rank_of_value_[p][ri] = static_cast<int32_t>(used_values_[p].size());
        used_values_[p].push_back(ri);
      }
  }
}

void GroupTree::decode_tail(unsigned bit, std::span<uint32_t> range_indices) const {
  for (size_t t = tail_radix_.size(); t-- > 0;) {
    range_indices[stored_levels_ + t] = bit % tail_radix_[t];
    bit /= tail_radix_[t];
  }
}

unsigned GroupTree::encode_tail(std::span<const uint32_t> range_indices) const {
  unsigned bit = 0;
  for (size_t t = 0; t < tail_radix_.size(); ++t) bit = bit * tail_radix_[t] + range_indices[stored_levels_ + t];
  return bit;
}

uint64_t GroupTree::leaf_in_node(size_t node, unsigned bit) const {
  uint64_t base = stored_levels_ == 0 ? 0 : levels_[stored_levels_ - 1].leaf_begin[node];
  uint64_t below = bit == 0 ? 0 : tail_mask(node) & ((uint64_t{1} << bit) - 1);
  return base + static_cast<uint64_t>(std::popcount(below));
}

void GroupTree::path_of_leaf(uint64_t leaf, std::span<uint32_t> range_indices) const {
  MDH_INTERNAL_ASSERT(leaf < leaf_count_, "leaf index out of range");
  size_t node = 0;
  size_t begin = 0;
  size_t end = stored_levels_ == 0 ? 0 : levels_[0].value.size();
  for (size_t l = 0; l < stored_levels_; ++l) {
    const Level& level = levels_[l];
    auto first = level.leaf_begin.begin();
    node = static_cast<size_t>(std::upper_bound(first + begin, first + end, leaf) - first) - 1;
    range_indices[l] = level.value[node];
    if (l + 1 < stored_levels_) {
      begin = level.child_begin[node];
      end = level.child_begin[node + 1];
    }
  }
  uint64_t within = stored_levels_ == 0 ? leaf : leaf - levels_[stored_levels_ - 1].leaf_begin[node];
  decode_tail(select_bit(tail_mask(node), within), range_indices);
}

std::optional<size_t> GroupTree::follow(size_t level, size_t begin, size_t end,
                                        std::span<const uint32_t> range_indices) const {
  size_t node = 0;
  for (size_t l = level; l < stored_levels_; ++l) {
    const Level& nodes = levels_[l];
    auto first = nodes.value.begin();
    auto it = std::lower_bound(first + begin, first + end, range_indices[l]);
    if (it == first + end || *it != range_indices[l]) return std::nullopt;
    node = static_cast<size_t>(it - first);
    if (l + 1 < stored_levels_) {
      begin = nodes.child_begin[node];
      end = nodes.child_begin[node + 1];
    }
  }
  return node;
}

std::optional<uint64_t> GroupTree::leaf_of_path(std::span<const uint32_t> range_indices) const {
  auto node = follow(0, 0, stored_levels_ == 0 ? 0 : levels_[0].value.size(), range_indices);
  if (!node) return std::nullopt;
  unsigned bit = encode_tail(range_indices);
  if (((tail_mask(*node) >> bit) & 1) == 0) return std::nullopt;
  return leaf_in_node(*node, bit);
}

void GroupTree::neighbours(uint64_t leaf, std::vector<std::pair<size_t, uint64_t>>& out) const {
  std::vector<uint32_t> path(parameters_.size());
  path_of_leaf(leaf, path);
  // Sibling ranges along the leaf's path.
  size_t begin = 0;
  size_t end = stored_levels_ == 0 ? 0 : levels_[0].value.size();
  size_t leaf_node = 0;
  std::vector<uint32_t> changed = path;
  const unsigned bit = encode_tail(path);
  for (size_t l = 0; l < stored_levels_; ++l) {
    const Level& nodes = levels_[l];
    size_t on_path = 0;
    for (size_t s = begin; s < end; ++s) {
      if (nodes.value[s] == path[l]) {
        on_path = s;
        continue;
      }
      changed[l] = nodes.value[s];
      std::optional<size_t> last = l + 1 < stored_levels_
                                       ? follow(l + 1, nodes.child_begin[s], nodes.child_begin[s + 1], changed)
                                       : std::optional<size_t>(s);
      if (last && ((tail_mask(*last) >> bit) & 1)) out.emplace_back(l, leaf_in_node(*last, bit));
    }
    changed[l] = path[l];
    leaf_node = on_path;
    if (l + 1 < stored_levels_) {
      begin = nodes.child_begin[on_path];
      end = nodes.child_begin[on_path + 1];
    }
  }
  const uint64_t mask = tail_mask(leaf_node);
  for (size_t p = stored_levels_; p < parameters_.size(); ++p) {
    for (uint32_t d = 0; d < tail_radix_[p - stored_levels_]; ++d) {
      if (d == path[p]) continue;
      changed[p] = d;
      unsigned other = encode_tail(changed);
      if ((mask >> other) & 1) out.emplace_back(p, leaf_in_node(leaf_node, other));
    }
    changed[p] = path[p];
  }
}

double GroupTree::coordinate(size_t position, uint32_t range_index) const {
  const size_t used = used_values_[position].size();
  int32_t rank = rank_of_value_[position][range_index];
  MDH_INTERNAL_ASSERT(rank >= 0, "value does not occur in the tree");
  return used <= 1 ? 0.0 : static_cast<double>(rank) / static_cast<double>(used - 1);
}

uint64_t GroupTree::closest(std::span<const double> coordinates) const {
  size_t node = 0;
  size_t begin = 0;
  size_t end = stored_levels_ == 0 ? 0 : levels_[0].value.size();
  for (size_t l = 0; l < stored_levels_; ++l) {
    const Level& nodes = levels_[l];
    double best = INFINITY;
    for (size_t s = begin; s < end; ++s) {
      double distance = std::abs(coordinate(l, nodes.value[s]) - coordinates[l]);
      if (distance < best) {
        best = distance;
        node = s;
      }
    }
    if (l + 1 < stored_levels_) {
      begin = nodes.child_begin[node];
      end = nodes.child_begin[node + 1];
    }
  }
  std::vector<uint32_t> digits(parameters_.size());
  unsigned best_bit = 0;
  double best = INFINITY;
  for (uint64_t m = tail_mask(node); m != 0; m &= m - 1) {
    unsigned bit = static_cast<unsigned>(std::countr_zero(m));
    decode_tail(bit, digits);
    double distance = 0;
    for (size_t p = stored_levels_; p < parameters_.size(); ++p)
      distance += std::abs(coordinate(p, digits[p]) - coordinates[p]);
    if (distance < best) {
      best = distance;
      best_bit = bit;
    }
  }
  return leaf_in_node(node, best_bit);
}

size_t GroupTree::memory_bytes() const {
  size_t bytes = tail_masks_.capacity() * sizeof(uint64_t);
  for (const Level& level : levels_)
    bytes += level.value.capacity() * sizeof(uint32_t) + level.child_begin.capacity() * sizeof(uint32_t) +
             level.leaf_begin.capacity() * sizeof(uint64_t);
  return bytes;
}

}  // namespace mdh::tuner
