#define BOOST_TEST_MODULE constraint_rank
// Rank, redundant rows and tangent basis by QRCP of C_q^T (mobility/constraint_rank.hpp):
// random matrices of known rank in the three shapes of the QRCP paper (m < n, m = n, m > n),
// and the paper's four-bar mechanisms from the lattice generator at a generic and at the
// singular configuration (all bars horizontal), with the counts the paper gives.
#include "mobility/constraint_rank.hpp"

#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "model/generators.hpp"
#include "model/state.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

/// m x n of rank r: the product of random m x r and r x n factors.
MatX randomOfRank(test::Random& rnd, Index m, Index n, Index r) {
  MatX B(m, r), C(r, n);
  for (Index i = 0; i < B.size(); ++i) B(i) = rnd.uniform();
  for (Index i = 0; i < C.size(); ++i) C(i) = rnd.uniform();
  return B * C;
}

void checkBases(const MatX& A, const ConstraintRank& r, const std::string& tag) {
  BOOST_REQUIRE(r.tangent.rows() == A.cols() && r.tangent.cols() == r.dof());
  BOOST_REQUIRE(r.normal.cols() == r.rank);
  MatX Q(A.cols(), A.cols());
  Q << r.normal, r.tangent;
  test::checkClose(MatX(Q.transpose() * Q), MatX::Identity(A.cols(), A.cols()), 1e-13,
                   tag + ": [Q1ns T] orthonormal");
  test::checkClose(MatX(A * r.tangent), MatX::Zero(A.rows(), r.dof()), 1e-12, tag + ": A T = 0");
}

}  // namespace

BOOST_AUTO_TEST_CASE(random_matrices_of_known_rank) {
  test::Random rnd(17);
  struct Shape {
    Index m, n, r;
  };
  for (const Shape& s :
       {Shape{6, 10, 6}, Shape{8, 10, 5}, Shape{9, 9, 7}, Shape{14, 9, 6}, Shape{12, 8, 8}}) {
    const MatX A = randomOfRank(rnd, s.m, s.n, s.r);
    const ConstraintRank r = analyzeConstraintRank(A);
    const std::string tag =
        std::to_string(s.m) + " x " + std::to_string(s.n) + " of rank " + std::to_string(s.r);
    BOOST_TEST(r.rank == s.r, tag);
    BOOST_TEST(r.dof() == s.n - s.r, tag);
    BOOST_TEST(r.redundantRows().size() == static_cast<std::size_t>(s.m - s.r), tag);
    BOOST_TEST(r.smallestRetained() > 1e-6, tag);
    BOOST_TEST(r.largestDropped() < 1e-13, tag);
    checkBases(A, r, tag);
    // The retained rows alone have the full rank: the dropped ones depend on them.
    MatX kept(s.r, s.n);
    for (Index i = 0; i < s.r; ++i) kept.row(i) = A.row(r.pivot_rows[i]);
    BOOST_TEST(analyzeConstraintRank(kept).rank == s.r, tag);
  }
}

BOOST_AUTO_TEST_CASE(a_zero_matrix_and_the_tolerance) {
  const ConstraintRank zero = analyzeConstraintRank(MatX::Zero(3, 5));
  BOOST_TEST(zero.rank == 0);
  BOOST_TEST(zero.dof() == 5);
  MatX A(2, 3);
  A << 1, 0, 0, 0, 1e-8, 0;  // a small but real second row
  BOOST_TEST(analyzeConstraintRank(A).rank == 2);
  BOOST_TEST(analyzeConstraintRank(A, 1e-6).rank == 1);
  BOOST_CHECK_THROW(analyzeConstraintRank(A, 0.0), Error);
}

// QRCP paper, section 3: the double four-bar (n = 15, m = 14, rank 14, 12 with every bar
// horizontal), the modified double (12, 12, rank 11, singular 10), the modified triple
// (15, 16, rank 14, singular 13) and the modified 2 x 2 (24, 24, rank 22, 2 DOF, singular 21).
BOOST_AUTO_TEST_CASE(the_papers_four_bar_mechanisms) {
  {
    FourBarLatticeOptions o;
    o.levels = o.cells = 2;
    o.merged_couplers = true;
    o.crank_angle = 0.0;  // both levels horizontal: two more motions, rank 20
    const Model m = buildFourBarLattice(o);
    const State s = initialState(m);
    BOOST_TEST(analyzeConstraintRank(m, buildAssemblyPlan(m), s.q, s.t).rank == 20);
  }
  struct Case {
    const char* name;
    int levels, cells;
    bool merged;
    Index n, m, rank, singular_rank;
  };
  for (const Case& c : {Case{"double", 1, 2, false, 15, 14, 14, 12},
                        Case{"modified double", 1, 2, true, 12, 12, 11, 10},
                        Case{"modified triple", 1, 3, true, 15, 16, 14, 13},
                        Case{"modified 2x2", 2, 2, true, 24, 24, 22, 21}}) {
    for (bool singular : {false, true}) {
      FourBarLatticeOptions o;
      o.levels = c.levels;
      o.cells = c.cells;
      o.merged_couplers = c.merged;
      o.crank_angle = singular ? 0.0 : 1.2;
      // The paper's 2 x 2 is singular when one level is horizontal (both: rank 20, below).
      if (c.levels == 2 && singular) o.level_angles = {0.0, 1.2};
      const Model m = buildFourBarLattice(o);
      const AssemblyPlan plan = buildAssemblyPlan(m);
      const State s = initialState(m);
      const ConstraintRank r = analyzeConstraintRank(m, plan, s.q, s.t);
      const std::string tag = std::string(c.name) + (singular ? ", bars horizontal" : "");
      BOOST_TEST_MESSAGE(tag << ": n " << r.n << ", m " << r.m << ", rank " << r.rank
                             << ", smallest retained " << r.smallestRetained()
                             << ", largest dropped " << r.largestDropped());
      BOOST_TEST(r.n == c.n, tag);
      BOOST_TEST(r.m == c.m, tag);
      BOOST_TEST(r.rank == (singular ? c.singular_rank : c.rank), tag);
      // The decision is clear-cut: retained pivots far above the threshold, dropped ones at
      // round-off.
      BOOST_TEST(r.smallestRetained() > 1e-3, tag);
      BOOST_TEST(r.largestDropped() < 1e-14, tag);
      SparseMatrixCSR Cq = makeConstraintMatrix(plan);
      assembleConstraints(m, plan, s.q, s.t, nullptr, &Cq);
      checkBases(MatX(Cq), r, tag);
    }
  }
}
