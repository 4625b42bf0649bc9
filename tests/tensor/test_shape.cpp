// Shapes and packed ranking against brute-force enumeration.
#include <gtest/gtest.h>

#include <map>

#include "tensor/layout.hpp"
#include "tensor/shape.hpp"

using namespace cyclocc::tensor;

TEST(Shape, GroupsFromFlags) {
  const Shape s({5, 5, 5, 3, 3, 4}, {Sym::AS, Sym::AS, Sym::NS, Sym::SY, Sym::NS, Sym::NS});
  const auto g = s.groups();
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].size, 3);
  EXPECT_EQ(g[0].sym, Sym::AS);
  EXPECT_EQ(g[1].size, 2);
  EXPECT_EQ(g[1].sym, Sym::SY);
  EXPECT_EQ(g[2].size, 1);
  EXPECT_EQ(s.packed_size(), 10 * 6 * 4);
}

TEST(Shape, RejectsBadFlags) {
  EXPECT_THROW(Shape({3, 4}, {Sym::AS, Sym::NS}), std::invalid_argument);
  EXPECT_THROW(Shape({3, 3}, {Sym::NS, Sym::AS}), std::invalid_argument);
  EXPECT_THROW(Shape({3, 3, 3}, {Sym::AS, Sym::SY, Sym::NS}), std::invalid_argument);
}

TEST(Shape, RankMatchesEnumerationForEveryGroupKind) {
  for (Sym sym : {Sym::AS, Sym::SY}) {
    for (int k = 1; k <= 4; ++k) {
      for (int n : {0, 1, 2, 5, 7}) {
        const auto tuples = group_tuples(n, k, sym);
        const std::int64_t count = group_count(n, k, sym);
        ASSERT_EQ(static_cast<std::int64_t>(tuples.size()), count * k);
        for (std::int64_t r = 0; r < count; ++r) {
          const int* x = tuples.data() + r * k;
          EXPECT_EQ(group_rank(x, k, n, sym), r);
          for (int t = 1; t < k; ++t) EXPECT_TRUE(sym == Sym::AS ? x[t - 1] < x[t] : x[t - 1] <= x[t]);
        }
      }
    }
  }
}

TEST(Shape, PackedIndexRoundTrip) {
  const Shape s({6, 6, 4, 3, 3, 3}, {Sym::AS, Sym::NS, Sym::NS, Sym::SY, Sym::SY, Sym::NS});
  int x[6];
  for (std::int64_t k = 0; k < s.packed_size(); ++k) {
    packed_unindex(s, k, x);
    EXPECT_TRUE(is_packed(s, x));
    EXPECT_EQ(packed_index(s, x), k);
  }
}

TEST(Shape, CanonicalizeSigns) {
  const Shape s({5, 5, 5}, {Sym::AS, Sym::AS, Sym::NS});
  int x[3] = {3, 1, 2};  // (3,1,2) -> (1,2,3): two transpositions
  EXPECT_EQ(canonicalize(s, x), 1);
  int y[3] = {1, 3, 2};
  EXPECT_EQ(canonicalize(s, y), -1);
  int z[3] = {2, 2, 1};
  EXPECT_EQ(canonicalize(s, z), 0);
}

TEST(Layout, ResiduesPartitionEveryComponent) {
  // A group distributed with phase 3: each tuple in exactly one class, the
  // class of a tuple is its index sum mod 3, and the classes are balanced.
  const ComponentTable t({Group{0, 2, Sym::AS, 9}}, 3);
  std::int64_t total = 0;
  for (int r = 0; r < 3; ++r) {
    total += static_cast<std::int64_t>(t.members[r].size());
    for (std::int32_t id : t.members[r]) EXPECT_EQ((t.tuple(id)[0] + t.tuple(id)[1]) % 3, r);
    EXPECT_NEAR(static_cast<double>(t.members[r].size()), 36.0 / 3, 1.0);
  }
  EXPECT_EQ(total, 36);
}
