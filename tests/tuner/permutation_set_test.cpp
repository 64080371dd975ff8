// Permutations too long to list: PermutationSet's rank arithmetic against brute force, and tree levels of such
// permutations (restricted, pinned, classes in order) against the predicates they replace.
#include "tuner/space/permutation_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "support/error.h"
#include "tuner/space/search_space.h"

namespace mdh::tuner {
namespace {

bool keeps_classes_in_order(int64_t rank, int n, const std::vector<int>& classes) {
  int largest = -1;
  for (int e : permutation_of_rank(rank, n)) {
    if (classes[e] < largest) return false;
    largest = std::max(largest, classes[e]);
  }
  return true;
}

TEST(PermutationSet, ClassOrderedSetsMatchBruteForce) {
  const int n = 7;
  const std::vector<int> classes{1, 0, 2, 1, 0, 1, 0};
  const PermutationSet set = PermutationSet::class_ordered(n, classes);
  std::vector<int64_t> members;
  for (int64_t r = 0; r < 5040; ++r)
    if (keeps_classes_in_order(r, n, classes)) members.push_back(r);
  ASSERT_EQ(set.size(), members.size());  // 3! * 3! * 1! = 36 orders of 5040
  EXPECT_EQ(set.size(), 36u);
  for (uint64_t k = 0; k < members.size(); ++k) EXPECT_EQ(set.at(k), members[k]) << k;
  for (int64_t r = 0; r < 5040; ++r) {
    auto it = std::lower_bound(members.begin(), members.end(), r);
    const bool member = it != members.end() && *it == r;
    ASSERT_EQ(set.index_of(r).has_value(), member) << r;
    if (member) {
      EXPECT_EQ(*set.index_of(r), static_cast<uint64_t>(it - members.begin()));
    }
  }
  // Neighbours: the members one swap away, ascending.
  for (uint64_t k : {uint64_t{0}, uint64_t{17}, uint64_t{35}}) {
    std::vector<uint64_t> got;
    set.transposition_neighbours(members[k], got);
    std::vector<uint64_t> expected;
    std::vector<int> p = permutation_of_rank(members[k], n);
    std::set<uint64_t> found;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        std::swap(p[i], p[j]);
        if (auto index = set.index_of(rank_of_permutation(p))) found.insert(*index);
        std::swap(p[i], p[j]);
      }
    expected.assign(found.begin(), found.end());
    EXPECT_EQ(got, expected) << k;
    EXPECT_EQ(got.size(), 3u + 3u) << k;  // one swap inside each class of three
  }
}

TEST(PermutationSet, TwentyElementsAreRankedWithoutListing) {
  std::vector<int> classes(20, 0);
  for (int e = 10; e < 20; ++e) classes[e] = 1;
  const PermutationSet all = PermutationSet::class_ordered(20, {});
  EXPECT_EQ(all.size(), 2432902008176640000u);  // 20!
  EXPECT_EQ(all.at(all.size() - 1), 2432902008176639999);
  const PermutationSet ordered = PermutationSet::class_ordered(20, classes);
  EXPECT_EQ(ordered.size(), 3628800ull * 3628800ull);  // 10! * 10!
  for (uint64_t k : {uint64_t{0}, uint64_t{1}, uint64_t{123456789012}, ordered.size() - 1}) {
    const int64_t rank = ordered.at(k);
    EXPECT_TRUE(keeps_classes_in_order(rank, 20, classes));
    EXPECT_EQ(ordered.index_of(rank), k);
    EXPECT_EQ(all.index_of(rank), static_cast<uint64_t>(rank));
  }
  EXPECT_EQ(ordered.at(0), 0);                                         // the identity keeps the classes in order
  EXPECT_FALSE(ordered.index_of(all.at(all.size() - 1)).has_value());  // 19, ..., 0 does not
}

// A group as mdh builds it for a cached input: MEM (none, local, private) and ORDER, the identity unless MEM is not
// none, with classes in order and a restriction; beside it a lone permutation. 9 elements: 362,880 orders, not
// enumerated, so the trees hold PermutationSets and the brute force tests the predicates on every rank.
TEST(PermutationSet, TreeLevelsOfLongPermutationsMatchThePredicates) {
  const int n = 9;
  const std::vector<int> classes{0, 0, 0, 0, 0, 1, 1, 1, 1};  // the identity keeps them in order
  std::vector<Parameter> params;
  params.push_back(Parameter::enumeration("MEM", {"none", "local", "private"}));
  params.push_back(Parameter::permutation("ORDER", n)
                       .pin_unless(0, {"MEM"}, [](std::span<const int64_t> r) { return r[0] != 0; })
                       .keep_classes_in_order(classes));
  params.push_back(Parameter::permutation("LONE", n).restrict_to({5, 362879, 40320, 7, 7}));
  const SearchSpace space(params, 2);
  ASSERT_EQ(space.group_count(), 2u);
  EXPECT_FALSE(space.parameter(1).range().enumerated());

  // Brute force over the predicates the shapes stand for.
  std::vector<std::vector<int64_t>> valid_orders(3);
  for (int64_t mem = 0; mem < 3; ++mem)
    for (int64_t r = 0; r < 362880; ++r) {
      const int64_t reads[] = {mem};
      bool ok = true;
      for (const Constraint& c : space.parameter(1).constraints()) ok = ok && c.predicate(r, reads);
      if (ok) valid_orders[mem].push_back(r);
    }
  ASSERT_EQ(valid_orders[0], std::vector<int64_t>{0});
  ASSERT_EQ(valid_orders[1].size(), 2880u);  // 5! * 4!
  const GroupTree& group = space.group(0);
  EXPECT_EQ(group.leaf_count(), 1 + 2 * 2880u);
  EXPECT_EQ(group.stored_nodes(), 3u);           // the three MEM values; no node per order
  EXPECT_EQ(group.permutation_set_count(), 2u);  // the identity, the class-ordered set
  EXPECT_EQ(space.group(1).leaf_count(), 4u);
  EXPECT_EQ(space.size(), BigUnsigned(4 * (1 + 2 * 2880)));

  // Leaves in order are the valid (MEM, ORDER) pairs in lexicographic order, and every path goes both ways.
  uint64_t leaf = 0;
  for (int64_t mem = 0; mem < 3; ++mem)
    for (int64_t order : valid_orders[mem]) {
      const Point point{leaf, 3};
      const Configuration c = space.configuration(point);
      ASSERT_EQ(c.value(0), mem);
      ASSERT_EQ(c.value(1), order);
      ASSERT_EQ(c.value(2), 362879);
      ASSERT_EQ(space.point_of(c), point);
      ++leaf;
    }
  // Not valid: an order out of class order, a pinned order other than the identity, a value outside the list.
  auto valid = [&](int64_t mem, int64_t order, int64_t lone) {
    const nlohmann::json json{{"MEM", space.parameter(0).value_to_json(mem)},
                              {"ORDER", space.parameter(1).value_to_json(order)},
                              {"LONE", space.parameter(2).value_to_json(lone)}};
    try {
      return space.point_of(space.configuration_from_json(json)).has_value();
    } catch (const UserError&) {
      return false;
    }
  };
  EXPECT_FALSE(valid(1, 362879, 5));
  EXPECT_FALSE(valid(0, valid_orders[1][1], 5));
  EXPECT_FALSE(valid(1, valid_orders[1][1], 6));
  EXPECT_TRUE(valid(2, valid_orders[1][1], 40320));

  // Neighbours change one parameter and stay valid; the long order moves by one swap at a time.
  Rng rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    const Point point = space.sample(rng);
    const Configuration c = space.configuration(point);
    for (const Point& other : space.neighbours(point)) {
      const Configuration d = space.configuration(other);
      int changed = 0;
      for (size_t i = 0; i < 3; ++i) changed += c.value(i) != d.value(i) ? 1 : 0;
      ASSERT_EQ(changed, 1);
      if (c.value(1) != d.value(1) && c.value(0) == d.value(0) && c.value(0) != 0) {
        std::vector<int> a = permutation_of_rank(c.value(1), n), b = permutation_of_rank(d.value(1), n);
        int differing = 0;
        for (int e = 0; e < n; ++e) differing += a[e] != b[e] ? 1 : 0;
        EXPECT_EQ(differing, 2);
      }
    }
    // The continuous view comes back to the same point.
    EXPECT_EQ(space.closest(space.coordinates(point)), point);
  }
}

TEST(PermutationSet, ALongPermutationNeedsItsConstraintsAsData) {
  std::vector<Parameter> predicate;
  predicate.push_back(Parameter::permutation("ORDER", 9).constrain([](int64_t v) { return v % 2 == 0; }));
  try {
    SearchSpace space(predicate, 2);
    FAIL() << "a predicate on a 9-element permutation was accepted";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "tuning parameter 'ORDER' has 362880 values, too many to list: its constraints must be declared with "
                 "restrict_to, pin_unless or keep_classes_in_order, not as a predicate");
  }
  std::vector<Parameter> not_last;
  not_last.push_back(Parameter::permutation("ORDER", 9));
  not_last.push_back(
      Parameter::boolean("FLAG").constrain({"ORDER"}, [](int64_t, std::span<const int64_t>) { return true; }));
  try {
    SearchSpace space(not_last, 2);
    FAIL() << "a 9-element permutation read by a later parameter was accepted";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "tuning parameter 'ORDER' has 362880 values, too many to list: no parameter of its group may be "
                 "declared after it ('FLAG' is)");
  }
  EXPECT_THROW(Parameter::permutation("ORDER", 21), UserError);
}

}  // namespace
}  // namespace mdh::tuner
