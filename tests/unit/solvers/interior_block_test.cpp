#define BOOST_TEST_MODULE interior_block
// Where the Schur decomposition splits a rank's rows into parts (solvers/interior_block.hpp,
// partSplits): at the split nearest the equal one that the fewest couplings cross; how
// analyseBlock numbers a block's pattern.

#include <boost/test/unit_test.hpp>

#include <vector>

#include "solvers/interior_block.hpp"

using namespace catena;

namespace {

/// The pattern of `bodies` groups of 3 rows, each group fully coupled, the last row of each
/// group coupled to the first of the next (a chain: one entry crosses a cut between groups,
/// two a cut inside one), as compressed rows.
struct ChainPattern {
  std::vector<PetscInt> start{0}, col;
  explicit ChainPattern(int bodies) {
    const int n = 3 * bodies;
    for (int i = 0; i < n; ++i) {
      const int g = i / 3;
      if (i % 3 == 0 && g > 0) col.push_back(i - 1);
      for (int j = 3 * g; j < 3 * g + 3; ++j) col.push_back(j);
      if (i % 3 == 2 && g + 1 < bodies) col.push_back(i + 1);
      start.push_back(static_cast<PetscInt>(col.size()));
    }
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(parts_split_between_groups_nearest_the_equal_split) {
  const ChainPattern p(5);  // 15 rows: equal splits at 7 (2 parts), 5 and 10 (3 parts)
  const auto split = [&](int parts, PetscInt window) {
    return partSplits(15, p.start.data(), p.col.data(), parts, window);
  };
  BOOST_TEST(split(2, 4) == std::vector<PetscInt>({6}), "2 parts");
  BOOST_TEST(split(3, 4) == std::vector<PetscInt>({6, 9}), "3 parts");
  BOOST_TEST(split(2, 0) == std::vector<PetscInt>({7}), "no window: the equal split");
  BOOST_TEST(split(1, 4).empty());
}

BOOST_AUTO_TEST_CASE(a_block_is_renumbered_in_pivot_order_with_its_rows_sorted) {
  // analyseBlock's pattern: row k is the caller's row renumbered[k], its columns the renumbered
  // columns ascending, each entry's source the position of that entry in the caller's rows.
  const ChainPattern p(40);  // 120 rows, groups of 3 coupled in a chain
  const int n = 120;
  const std::vector<int> start(p.start.begin(), p.start.end()), col(p.col.begin(), p.col.end());
  std::vector<PetscInt> source(col.size());
  for (std::size_t a = 0; a < source.size(); ++a) source[a] = static_cast<PetscInt>(a);
  std::vector<char> last(n, 0);
  last[n - 1] = last[0] = 1;  // the chain's two ends face other ranks
  const std::vector<char> ordered_last = last;
  InteriorBlock blk;
  blk.first = 0;
  blk.size = n;
  analyseBlock(blk, start, col, source, last, ordered_last, n);
  BOOST_REQUIRE(blk.klu);
  BOOST_REQUIRE(blk.renumbered.size() == static_cast<std::size_t>(n));
  const int* ns = blk.klu->patternRowStart();
  const int* nc = blk.klu->patternColumns();
  BOOST_TEST(ns[n] == static_cast<int>(col.size()));
  BOOST_TEST(blk.source.size() == col.size());
  int unsorted = 0, misplaced = 0;
  for (int k = 0; k < n; ++k) {
    const int row = blk.renumbered[k];
    BOOST_TEST(ns[k + 1] - ns[k] == start[row + 1] - start[row]);
    for (int a = ns[k]; a < ns[k + 1]; ++a) {
      if (a > ns[k] && nc[a] <= nc[a - 1]) ++unsorted;
      const PetscInt s = blk.source[a];
      if (s < start[row] || s >= start[row + 1] || col[s] != blk.renumbered[nc[a]]) ++misplaced;
    }
  }
  BOOST_TEST(unsorted == 0);
  BOOST_TEST(misplaced == 0);
}
