// Depth-first generation of a group tree with memoised constraints, and navigation of the flat layout.
#include "tuner/space/group_tree.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <exception>
#include <mutex>
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
  std::vector<PermutationSet> sets;  // lazy groups: the chunk's distinct sets of valid orders
  std::vector<uint32_t> set_ids;     // lazy groups: per node of the last stored level, its set in `sets`
  uint64_t leaves = 0;
};

// The valid orders of a permutation that is not enumerated, from its constraints' shapes (GroupTree::build has
// checked that none is a bare predicate). `reads_of` gives the values a constraint reads.
template <typename ReadsOf>
PermutationSet valid_orders(const GroupParameter& gp, ReadsOf reads_of) {
  const Parameter& parameter = *gp.parameter;
  std::vector<int> classes;
  std::optional<std::vector<int64_t>> listed;
  auto keep_only = [&](std::vector<int64_t> values) {
    std::sort(values.begin(), values.end());
    if (listed) {
      std::vector<int64_t> both;
      std::set_intersection(listed->begin(), listed->end(), values.begin(), values.end(), std::back_inserter(both));
      values = std::move(both);
    }
    listed = std::move(values);
  };
  const auto& constraints = parameter.constraints();
  for (size_t c = 0; c < constraints.size(); ++c) {
    const Constraint& constraint = constraints[c];
    switch (constraint.shape) {
      case Constraint::Shape::classes_in_order:
        classes = constraint.classes;
        break;
      case Constraint::Shape::one_of:
        keep_only(constraint.values);
        break;
      case Constraint::Shape::pinned_unless:
        if (!constraint.exempt(reads_of(c))) keep_only(constraint.values);
        break;
      case Constraint::Shape::predicate:
        MDH_INTERNAL_ASSERT(false, "a predicate on a permutation that is not enumerated");
    }
  }
  PermutationSet set = PermutationSet::class_ordered(parameter.permutation_length(), std::move(classes));
  return listed ? set.intersected_with_list(*listed) : set;
}

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
  Builder(const std::vector<GroupParameter>& parameters, size_t stored_levels, const std::vector<uint32_t>& tail_radix,
          bool lazy, std::atomic<uint64_t>* stored_nodes = nullptr)
      : stored_nodes_(stored_nodes),
        parameters_(parameters),
        lazy_(lazy),
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
    chunk_set_of_.assign(sets_.size(), -1);
    descend(0, root_candidates);
    add_stored_nodes();
  }

  // The valid orders of the lazy last parameter given the stored values in path_, memoised per read tuple: an
  // index into sets_.
  size_t permutation_set() {
    std::vector<int64_t>& key = key_buffer_;
    key.clear();
    for (size_t r : tail_key_reads_) key.push_back(path_[r]);
    auto it = set_memo_.find(key);
    if (it != set_memo_.end()) return it->second;
    const GroupParameter& gp = parameters_[stored_levels_];
    PermutationSet set = valid_orders(gp, [&](size_t c) {
      read_buffer_.clear();
      for (size_t r : gp.constraint_reads[c]) read_buffer_.push_back(path_[r]);
      return std::span<const int64_t>(read_buffer_);
    });
    sets_.push_back(std::move(set));
    set_memo_.emplace(key, sets_.size() - 1);
    return sets_.size() - 1;
  }
  const PermutationSet& set(size_t index) const { return sets_[index]; }

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
  // The nodes of all threads' chunks are counted together, in batches, against kMaxGroupTreeNodes.
  void count_node() {
    if (++unreported_nodes_ >= kNodeBatch) add_stored_nodes();
  }
  void add_stored_nodes() {
    if (!stored_nodes_ || unreported_nodes_ == 0) return;
    const uint64_t total = stored_nodes_->fetch_add(unreported_nodes_) + unreported_nodes_;
    unreported_nodes_ = 0;
    if (total <= kMaxGroupTreeNodes) return;
    std::string names;
    for (const GroupParameter& gp : parameters_) names += (names.empty() ? "" : ", ") + gp.parameter->name();
    throw GroupTooLarge("the tuning parameters " + names + " (one group) have more than " +
                        std::to_string(kMaxGroupTreeNodes) +
                        " valid combinations of their values, too many to hold; narrow their ranges");
  }
  static constexpr uint64_t kNodeBatch = 4096;
  std::atomic<uint64_t>* stored_nodes_;
  uint64_t unreported_nodes_ = 0;

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
      if (last_stored && lazy_) {
        const size_t index = permutation_set();
        const uint64_t orders = sets_[index].size();
        if (orders == 0) continue;
        if (orders > UINT64_MAX - out_->leaves)
          throw UserError("the parameters of group '" + parameters_[0].parameter->name() +
                          "' have more than 2^64 valid combinations");
        nodes.value.push_back(ri);
        count_node();
        nodes.leaf_begin.push_back(leaves_before);
        if (index >= chunk_set_of_.size()) chunk_set_of_.resize(index + 1, -1);
        if (chunk_set_of_[index] < 0) {
          chunk_set_of_[index] = static_cast<int64_t>(out_->sets.size());
          out_->sets.push_back(sets_[index]);
        }
        out_->set_ids.push_back(static_cast<uint32_t>(chunk_set_of_[index]));
        out_->leaves += orders;
      } else if (last_stored) {
        uint64_t mask = tail_radix_.empty() ? 1 : tail_mask();
        if (mask == 0) continue;
        nodes.value.push_back(ri);
        count_node();
        nodes.leaf_begin.push_back(leaves_before);
        if (!tail_radix_.empty()) out_->masks.push_back(mask);
        out_->leaves += static_cast<uint64_t>(std::popcount(mask));
      } else {
        const std::vector<uint32_t>& children = valid_values(level + 1);
        if (children.empty()) continue;
        nodes.value.push_back(ri);
        count_node();
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
  bool lazy_;
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
  std::unordered_map<std::vector<int64_t>, size_t, ReadTupleHash> set_memo_;
  std::vector<PermutationSet> sets_;
  std::vector<int64_t> chunk_set_of_;  // per entry of sets_, its index in the current chunk's sets, or -1
  std::vector<int64_t> key_buffer_;
  std::vector<int64_t> read_buffer_;
  Chunk* out_ = nullptr;
};

// Concatenates chunks level by level, shifting child and leaf offsets, and frees each chunk level once copied so
// that the peak stays near the final size.
void merge_chunks(std::vector<Chunk>& chunks, size_t stored_levels, std::vector<GroupTree::Level>& levels,
                  std::vector<uint64_t>& masks, std::vector<PermutationSet>& sets, std::vector<uint32_t>& set_of_node,
                  uint64_t& leaf_count) {
  levels.assign(stored_levels, {});
  std::vector<uint64_t> leaf_offset(chunks.size() + 1, 0);
  for (size_t c = 0; c < chunks.size(); ++c) {
    if (chunks[c].leaves > UINT64_MAX - leaf_offset[c])
      throw UserError("a group of parameters has more than 2^64 valid combinations");
    leaf_offset[c + 1] = leaf_offset[c] + chunks[c].leaves;
  }
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
    // Sets are few (one per distinct read tuple of the lazy parameter), so a linear search deduplicates them.
    std::vector<uint32_t> global_id;
    for (PermutationSet& set : chunk.sets) {
      auto it = std::find(sets.begin(), sets.end(), set);
      global_id.push_back(static_cast<uint32_t>(it - sets.begin()));
      if (it == sets.end()) sets.push_back(std::move(set));
    }
    for (uint32_t id : chunk.set_ids) set_of_node.push_back(global_id[id]);
    release(chunk.set_ids);
  }
}

}  // namespace

GroupTree GroupTree::build(std::vector<GroupParameter> parameters, unsigned threads) {
  MDH_INTERNAL_ASSERT(!parameters.empty(), "a group has at least one parameter");
  GroupTree tree;
  tree.parameters_ = std::move(parameters);
  const size_t count = tree.parameters_.size();
  // 1. A permutation too long to enumerate is the last parameter, and its constraints say what they mean as data.
  for (size_t p = 0; p < count; ++p) {
    const Parameter& parameter = *tree.parameters_[p].parameter;
    if (parameter.range().enumerated()) continue;
    const std::string what = "tuning parameter '" + parameter.name() + "' has " +
                             std::to_string(parameter.range().size()) + " values, too many to list: ";
    if (p + 1 != count)
      throw UserError(what + "no parameter of its group may be declared after it ('" +
                      tree.parameters_[p + 1].parameter->name() + "' is)");
    size_t class_orders = 0;
    for (const Constraint& constraint : parameter.constraints()) {
      if (constraint.shape == Constraint::Shape::predicate)
        throw UserError(what +
                        "its constraints must be declared with restrict_to, pin_unless or "
                        "keep_classes_in_order, not as a predicate");
      class_orders += constraint.shape == Constraint::Shape::classes_in_order ? 1 : 0;
    }
    if (class_orders > 1) throw UserError(what + "it keeps classes in order once at most");
    tree.lazy_ = true;
  }
  // 2. Choose the tail: the longest suffix of parameters whose value combinations fit into one mask.
  size_t stored = count;
  uint64_t combinations = 1;
  if (tree.lazy_)
    stored = count - 1;
  else
    // Checked: ranges of 2^31 values wrap 64 bits by the third parameter, and a wrapped count would fit the mask.
    for (uint64_t more = 0;
         stored > 0 &&
         !__builtin_mul_overflow(combinations, tree.parameters_[stored - 1].parameter->range().size(), &more) &&
         more <= kMaxTailCombinations;) {
      combinations = more;
      --stored;
    }
  tree.stored_levels_ = stored;
  for (size_t p = stored; p < count && !tree.lazy_; ++p)
    tree.tail_radix_.push_back(static_cast<uint32_t>(tree.parameters_[p].parameter->range().size()));

  if (stored == 0 && tree.lazy_) {
    // 3a. A lone permutation: one set of orders.
    Builder builder(tree.parameters_, 0, tree.tail_radix_, true);
    tree.permutation_sets_.push_back(builder.set(builder.permutation_set()));
    tree.set_of_node_.push_back(0);
    tree.leaf_count_ = tree.permutation_sets_[0].size();
  } else if (stored == 0) {
    // 3b. Everything fits into a single mask.
    Builder builder(tree.parameters_, 0, tree.tail_radix_, false);
    uint64_t mask = builder.tail_mask();
    tree.tail_masks_.push_back(mask);
    tree.leaf_count_ = static_cast<uint64_t>(std::popcount(mask));
  } else {
    // 3c. Split the first level's valid values across threads; each value's subtree is one chunk.
    std::vector<uint32_t> roots = Builder(tree.parameters_, stored, tree.tail_radix_, tree.lazy_).valid_values(0);
    std::vector<Chunk> chunks(roots.size());
    std::atomic<size_t> next_root{0};
    std::atomic<uint64_t> stored_nodes{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto work = [&] {
      try {
        Builder builder(tree.parameters_, stored, tree.tail_radix_, tree.lazy_, &stored_nodes);
        for (size_t r = next_root++; r < roots.size(); r = next_root++)
          builder.build(std::span<const uint32_t>(&roots[r], 1), chunks[r]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next_root = roots.size();
      }
    };
    const unsigned workers = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(roots.size())));
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
    merge_chunks(chunks, stored, tree.levels_, tree.tail_masks_, tree.permutation_sets_, tree.set_of_node_,
                 tree.leaf_count_);
  }
  tree.collect_used_values();
  return tree;
}

void GroupTree::collect_used_values() {
  const size_t count = parameters_.size();
  const size_t listed = lazy_ ? count - 1 : count;  // the lazy permutation's used orders are a PermutationSet
  std::vector<std::vector<char>> used(listed);
  for (size_t p = 0; p < listed; ++p) used[p].assign(parameters_[p].parameter->range().size(), 0);
  for (size_t l = 0; l < stored_levels_; ++l)
    for (uint32_t ri : levels_[l].value) used[l][ri] = 1;
  uint64_t any_mask = 0;
  for (uint64_t mask : tail_masks_) any_mask |= mask;
  std::vector<uint64_t> digits(count);
  for (uint64_t m = any_mask; m != 0 && !tail_radix_.empty(); m &= m - 1) {
    decode_tail(static_cast<unsigned>(std::countr_zero(m)), digits);
    for (size_t p = stored_levels_; p < count; ++p) used[p][digits[p]] = 1;
  }
  used_values_.assign(listed, {});
  rank_of_value_.assign(listed, {});
  for (size_t p = 0; p < listed; ++p) {
    rank_of_value_[p].assign(used[p].size(), -1);
    for (uint32_t ri = 0; ri < used[p].size(); ++ri)
      if (used[p][ri]) {
        rank_of_value_[p][ri] = static_cast<int32_t>(used_values_[p].size());
        used_values_[p].push_back(ri);
      }
  }
  if (lazy_) {
    // Every set is the class order's set cut down by value lists, so a set that is not listed is the union.
    std::vector<int64_t> ranks;
    for (const PermutationSet& set : permutation_sets_) {
      if (!set.is_listed()) {
        used_orders_ = set;
        return;
      }
      for (uint64_t k = 0; k < set.size(); ++k) ranks.push_back(set.at(k));
    }
    used_orders_ = PermutationSet::listed(parameters_.back().parameter->permutation_length(), std::move(ranks));
  }
}

void GroupTree::decode_tail(unsigned bit, std::span<uint64_t> range_indices) const {
  for (size_t t = tail_radix_.size(); t-- > 0;) {
    range_indices[stored_levels_ + t] = bit % tail_radix_[t];
    bit /= tail_radix_[t];
  }
}

unsigned GroupTree::encode_tail(std::span<const uint64_t> range_indices) const {
  unsigned bit = 0;
  for (size_t t = 0; t < tail_radix_.size(); ++t)
    bit = bit * tail_radix_[t] + static_cast<unsigned>(range_indices[stored_levels_ + t]);
  return bit;
}

uint64_t GroupTree::node_leaf_begin(size_t node) const {
  return stored_levels_ == 0 ? 0 : levels_[stored_levels_ - 1].leaf_begin[node];
}

uint64_t GroupTree::leaf_in_node(size_t node, unsigned bit) const {
  uint64_t below = bit == 0 ? 0 : tail_mask(node) & ((uint64_t{1} << bit) - 1);
  return node_leaf_begin(node) + static_cast<uint64_t>(std::popcount(below));
}

std::optional<uint64_t> GroupTree::leaf_at(size_t node, std::span<const uint64_t> range_indices) const {
  if (lazy_) {
    auto k = set_of(node).index_of(static_cast<int64_t>(range_indices[stored_levels_]));
    if (!k) return std::nullopt;
    return node_leaf_begin(node) + *k;
  }
  const unsigned bit = encode_tail(range_indices);
  if (((tail_mask(node) >> bit) & 1) == 0) return std::nullopt;
  return leaf_in_node(node, bit);
}

void GroupTree::path_of_leaf(uint64_t leaf, std::span<uint64_t> range_indices) const {
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
  const uint64_t within = leaf - node_leaf_begin(node);
  if (lazy_)
    range_indices[stored_levels_] = static_cast<uint64_t>(set_of(node).at(within));
  else
    decode_tail(select_bit(tail_mask(node), within), range_indices);
}

std::optional<size_t> GroupTree::follow(size_t level, size_t begin, size_t end,
                                        std::span<const uint64_t> range_indices) const {
  size_t node = 0;
  for (size_t l = level; l < stored_levels_; ++l) {
    const Level& nodes = levels_[l];
    auto first = nodes.value.begin();
    if (range_indices[l] > UINT32_MAX) return std::nullopt;
    const auto wanted = static_cast<uint32_t>(range_indices[l]);
    auto it = std::lower_bound(first + begin, first + end, wanted);
    if (it == first + end || *it != wanted) return std::nullopt;
    node = static_cast<size_t>(it - first);
    if (l + 1 < stored_levels_) {
      begin = nodes.child_begin[node];
      end = nodes.child_begin[node + 1];
    }
  }
  return node;
}

std::optional<uint64_t> GroupTree::leaf_of_path(std::span<const uint64_t> range_indices) const {
  auto node = follow(0, 0, stored_levels_ == 0 ? 0 : levels_[0].value.size(), range_indices);
  if (!node) return std::nullopt;
  return leaf_at(*node, range_indices);
}

void GroupTree::neighbours(uint64_t leaf, std::vector<std::pair<size_t, uint64_t>>& out) const {
  std::vector<uint64_t> path(parameters_.size());
  path_of_leaf(leaf, path);
  // Sibling ranges along the leaf's path.
  size_t begin = 0;
  size_t end = stored_levels_ == 0 ? 0 : levels_[0].value.size();
  size_t leaf_node = 0;
  std::vector<uint64_t> changed = path;
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
      if (!last) continue;
      if (auto other = leaf_at(*last, changed)) out.emplace_back(l, *other);
    }
    changed[l] = path[l];
    leaf_node = on_path;
    if (l + 1 < stored_levels_) {
      begin = nodes.child_begin[on_path];
      end = nodes.child_begin[on_path + 1];
    }
  }
  if (lazy_) {
    std::vector<uint64_t> orders;
    set_of(leaf_node).transposition_neighbours(static_cast<int64_t>(path[stored_levels_]), orders);
    for (uint64_t k : orders) out.emplace_back(stored_levels_, node_leaf_begin(leaf_node) + k);
    return;
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

bool GroupTree::is_used(size_t position, uint64_t range_index) const {
  if (lazy_ && position == stored_levels_) return used_orders_->index_of(static_cast<int64_t>(range_index)).has_value();
  return range_index < rank_of_value_[position].size() && rank_of_value_[position][range_index] >= 0;
}

double GroupTree::coordinate(size_t position, uint64_t range_index) const {
  if (lazy_ && position == stored_levels_) {
    const uint64_t used = used_orders_->size();
    auto rank = used_orders_->index_of(static_cast<int64_t>(range_index));
    MDH_INTERNAL_ASSERT(rank.has_value(), "order does not occur in the tree");
    return used <= 1 ? 0.0 : static_cast<double>(*rank) / static_cast<double>(used - 1);
  }
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
  if (lazy_) {
    // A listed set is short: scan it. A class-ordered set is all used orders, so the closest one is the nearest
    // rank to the coordinate.
    const PermutationSet& orders = set_of(node);
    const double target = coordinates[stored_levels_];
    if (!orders.is_listed()) {
      const long double place = std::clamp<long double>(target, 0, 1) * static_cast<long double>(orders.size() - 1);
      return node_leaf_begin(node) + std::min<uint64_t>(static_cast<uint64_t>(place + 0.5L), orders.size() - 1);
    }
    uint64_t best_k = 0;
    double best = INFINITY;
    for (uint64_t k = 0; k < orders.size(); ++k) {
      double distance = std::abs(coordinate(stored_levels_, static_cast<uint64_t>(orders.at(k))) - target);
      if (distance < best) {
        best = distance;
        best_k = k;
      }
    }
    return node_leaf_begin(node) + best_k;
  }
  std::vector<uint64_t> digits(parameters_.size());
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
  size_t bytes = tail_masks_.capacity() * sizeof(uint64_t) + set_of_node_.capacity() * sizeof(uint32_t);
  for (const Level& level : levels_)
    bytes += level.value.capacity() * sizeof(uint32_t) + level.child_begin.capacity() * sizeof(uint32_t) +
             level.leaf_begin.capacity() * sizeof(uint64_t);
  for (const PermutationSet& set : permutation_sets_)
    bytes += sizeof(PermutationSet) + (set.is_listed() ? set.size() * sizeof(int64_t) : 0);
  return bytes;
}

size_t GroupTree::stored_nodes() const {
  size_t nodes = 0;
  for (const Level& level : levels_) nodes += level.value.size();
  return nodes;
}

}  // namespace mdh::tuner
