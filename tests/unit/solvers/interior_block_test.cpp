#define BOOST_TEST_MODULE interior_block
// Where the Schur decomposition splits a rank's rows into parts (solvers/interior_block.hpp,
// partSplits): at the split nearest the equal one that the fewest couplings cross.

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
