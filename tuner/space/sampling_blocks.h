// Uniform draws of valid configurations where rejecting uniform candidates would almost never succeed. A global
// constraint that reads a few small groups can exclude a fixed share of the candidates once per dimension: mdh's
// "OWNERSHIP_d = block unless (NUM_WI_d >= 2 and PT_SIZE_d >= 2)" excludes half of them per dimension at extent 2,
// so at 20 dimensions about one candidate in 10^6 was valid and `mdh tune` gave up after 10^6 rejections (88 s).
// Groups that such constraints tie together form a *block* whose valid leaf combinations (under the constraints
// that read only the block) are listed; a draw takes a uniform valid combination per block and a uniform leaf per
// other group, and rejects only what the remaining constraints exclude. That is still uniform over the valid
// configurations (uniform over the blocks' product, then rejection).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "tuner/space/big_unsigned.h"
#include "tuner/space/global_constraints.h"
#include "tuner/space/random.h"

namespace mdh::tuner {

class SamplingBlocks {
 public:
  /// Sets scratch.values for the parameters of `group` at `leaf`.
  using DecodeGroup = std::function<void(size_t group, uint64_t leaf, CheckScratch& scratch)>;
  /// A block lists at most this many leaf combinations (the product of its groups' leaf counts).
  static constexpr uint64_t kMaxBlockCombinations = 4096;
  /// Blocks are used only when a uniform candidate satisfies the blocks' constraints with a probability below this.
  /// Above it rejection is cheap enough, and spaces that sampled by plain rejection before blocks existed keep
  /// their draws, so that their journals resume (every app in apps/ with its experiment sizes stays above it:
  /// SamplingBlocks.AppsKeepPlainRejection).
  static constexpr double kPlainRejectionFloor = 1.0 / 4096;

  SamplingBlocks() = default;
  /// Ties groups greedily, the constraint whose groups' blocks have the smallest product first, as long as the
  /// product stays within kMaxBlockCombinations; then lists each block's valid combinations.
  SamplingBlocks(std::span<const uint64_t> leaf_counts, const GlobalConstraintSet& globals, const DecodeGroup& decode,
                 CheckScratch& scratch);

  /// Whether draws go through the blocks (see kPlainRejectionFloor).
  bool active() const { return active_; }
  /// Whether draw() can be called: some block, none empty (active or not).
  bool can_draw() const { return !blocks_.empty() && !has_empty_block_; }
  size_t block_count() const { return blocks_.size(); }
  /// The share of uniform candidates that satisfy every constraint internal to a block (0 when a block has no
  /// valid combination).
  double internal_fraction() const { return internal_fraction_; }
  /// Whether some block has no valid combination: then the space has no valid configuration.
  bool has_empty_block() const { return has_empty_block_; }
  /// The constraints that read groups of more than one block, or groups outside the blocks: checked per draw.
  const std::vector<size_t>& remaining_constraints() const { return remaining_; }
  /// The number of configurations a draw ranges over: the blocks' valid combinations times the other groups' leaves.
  const BigUnsigned& drawn_from() const { return drawn_from_; }

  /// One leaf per group, uniform over the configurations that satisfy every block's constraints. Requires a space
  /// without empty blocks.
  void draw(Rng& rng, std::vector<uint64_t>& point) const;

 private:
  struct Block {
    std::vector<size_t> groups;          // ascending
    std::vector<uint64_t> combinations;  // valid combinations, groups.size() leaves each, in mixed-radix order
  };
  std::vector<uint64_t> leaf_counts_;
  std::vector<Block> blocks_;
  std::vector<int64_t> block_of_group_;  // -1: the group is drawn alone
  std::vector<size_t> remaining_;
  BigUnsigned drawn_from_;
  double internal_fraction_ = 1;
  bool has_empty_block_ = false;
  bool active_ = false;
};

}  // namespace mdh::tuner
