// Tying groups into blocks, listing each block's valid combinations, and drawing through them.
#include "tuner/space/sampling_blocks.h"

#include <algorithm>
#include <numeric>

#include "support/error.h"

namespace mdh::tuner {
namespace {

constexpr uint64_t kTooMany = SamplingBlocks::kMaxBlockCombinations + 1;

uint64_t saturating_product(uint64_t a, uint64_t b) {
  return b != 0 && a > kTooMany / b ? kTooMany : a * b;
}

}  // namespace

SamplingBlocks::SamplingBlocks(std::span<const uint64_t> leaf_counts, const GlobalConstraintSet& globals,
                               const DecodeGroup& decode, CheckScratch& scratch)
    : leaf_counts_(leaf_counts.begin(), leaf_counts.end()), block_of_group_(leaf_counts.size(), -1) {
  const size_t groups = leaf_counts.size();
  // 1. Tie groups: every group starts as a unit of its own, not listed. A constraint is internal once all its
  // groups lie in one listed unit; the constraint whose units have the smallest joint product is tied next (the
  // first such constraint on ties), as long as that product stays listable.
  std::vector<size_t> parent(groups);
  std::iota(parent.begin(), parent.end(), size_t{0});
  std::vector<uint64_t> product(leaf_counts_);
  std::vector<char> listed(groups, 0);
  auto find = [&](size_t g) {
    while (parent[g] != g) g = parent[g] = parent[parent[g]];
    return g;
  };
  auto internal = [&](size_t c) {
    const std::vector<size_t>& read = globals.groups_read_by(c);
    const size_t root = find(read.front());
    return listed[root] && std::all_of(read.begin(), read.end(), [&](size_t g) { return find(g) == root; });
  };
  std::vector<size_t> roots;
  auto roots_of = [&](size_t c) {
    roots.clear();
    for (size_t g : globals.groups_read_by(c)) roots.push_back(find(g));
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
    uint64_t joint = 1;
    for (size_t r : roots) joint = saturating_product(joint, product[r]);
    return joint;
  };
  for (;;) {
    size_t best = GlobalConstraintSet::npos;
    uint64_t best_product = kTooMany;
    for (size_t c = 0; c < globals.size(); ++c) {
      if (internal(c)) continue;
      const uint64_t joint = roots_of(c);
      if (joint < best_product) best = c, best_product = joint;
    }
    if (best == GlobalConstraintSet::npos) break;
    roots_of(best);
    for (size_t r : roots) parent[r] = roots.front();
    product[roots.front()] = best_product;
    listed[roots.front()] = 1;
  }

  // 2. List each block's valid combinations: mixed radix over its groups, the last fastest, decoding a group again
  // only when its leaf changed.
  std::vector<std::vector<size_t>> constraints_of_block;
  for (size_t g = 0; g < groups; ++g) {
    const size_t root = find(g);
    if (!listed[root]) continue;
    if (block_of_group_[root] < 0) {
      block_of_group_[root] = static_cast<int64_t>(blocks_.size());
      blocks_.emplace_back();
      constraints_of_block.emplace_back();
    }
    block_of_group_[g] = block_of_group_[root];
    blocks_[static_cast<size_t>(block_of_group_[g])].groups.push_back(g);
  }
  for (size_t c = 0; c < globals.size(); ++c) {
    if (internal(c))
      constraints_of_block[static_cast<size_t>(block_of_group_[globals.groups_read_by(c).front()])].push_back(c);
    else
      remaining_.push_back(c);
  }
  drawn_from_ = BigUnsigned(1);
  for (size_t g = 0; g < groups; ++g)
    if (block_of_group_[g] < 0) drawn_from_ *= BigUnsigned(leaf_counts_[g]);
  std::vector<uint64_t> leaves;
  for (size_t b = 0; b < blocks_.size(); ++b) {
    Block& block = blocks_[b];
    leaves.assign(block.groups.size(), 0);
    for (size_t g : block.groups) decode(g, 0, scratch);
    uint64_t combinations = 0;
    for (;;) {
      ++combinations;
      bool valid = true;
      for (size_t c : constraints_of_block[b])
        if (!globals.holds(c, scratch.values, scratch.reads)) {
          valid = false;
          break;
        }
      if (valid) block.combinations.insert(block.combinations.end(), leaves.begin(), leaves.end());
      size_t k = leaves.size();
      while (k-- > 0) {
        if (++leaves[k] < leaf_counts_[block.groups[k]]) break;
        leaves[k] = 0;
      }
      if (k == static_cast<size_t>(-1)) break;
      for (size_t j = k; j < leaves.size(); ++j) decode(block.groups[j], leaves[j], scratch);
    }
    const uint64_t valid_combinations = block.combinations.size() / block.groups.size();
    has_empty_block_ = has_empty_block_ || valid_combinations == 0;
    internal_fraction_ *= static_cast<double>(valid_combinations) / static_cast<double>(combinations);
    drawn_from_ *= BigUnsigned(valid_combinations);
  }
  // Inactive lists are kept (at most kMaxBlockCombinations leaves per group): SearchSpace::sample draws through them
  // where plain rejection gives up.
  active_ = !blocks_.empty() && internal_fraction_ < kPlainRejectionFloor;
}

void SamplingBlocks::draw(Rng& rng, std::vector<uint64_t>& point) const {
  MDH_INTERNAL_ASSERT(!has_empty_block_, "a draw from a block without valid combinations");
  for (size_t g = 0; g < leaf_counts_.size(); ++g) {
    const int64_t b = block_of_group_[g];
    if (b < 0) {
      point[g] = rng.below(leaf_counts_[g]);
      continue;
    }
    const Block& block = blocks_[static_cast<size_t>(b)];
    if (block.groups.front() != g) continue;  // drawn with the block's first group
    const size_t width = block.groups.size();
    const uint64_t k = rng.below(block.combinations.size() / width);
    for (size_t j = 0; j < width; ++j) point[block.groups[j]] = block.combinations[k * width + j];
  }
}

}  // namespace mdh::tuner
