#define BOOST_TEST_MODULE blockwise_rank
// Block-wise rank of C_q (mobility/blockwise_rank.hpp) against three independent answers: the
// closed forms of docs/lattice-mobility.md, the dense QRCP of mobility/constraint_rank.hpp and
// SuiteSparseQR with the same threshold (solvers/sparse_qr.hpp). Four-bar lattices L x K for
// every pair of L, K in {1, 2, 3, 5, 8, 13, 21}, and 64 x 64, 24 x 150 (unmerged) and 40 x 40
// (merged), generic and with some or all levels horizontal; catenary chains; random models
// with every joint type. The rows reported redundant are dependent (the retained ones have full
// rank), and the results are the same bits for 1, 2 and 3 threads.
#include "mobility/blockwise_rank.hpp"

#include <omp.h>

#include <sstream>

#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "mobility/constraint_rank.hpp"
#include "model/generators.hpp"
#include "model/state.hpp"
#include "random_model.hpp"
#include "report/mobility_report.hpp"
#include "solvers/sparse_qr.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

/// Closed forms (docs/lattice-mobility.md): s of the L levels horizontal.
struct LatticeCounts {
  Index n, m, rank;
};
LatticeCounts latticeCounts(int L, int K, bool merged, int s) {
  if (merged) return {3 * L * (K + 2), 4 * L * (K + 1), L * (3 * K + 5) - s};
  return {3 * L * (2 * K + 1), 2 * L * (3 * K + 1), 2 * L * (3 * K + 1) - s * K};
}

/// Generic (every level at 1.1 rad), all levels horizontal, or levels 0, 3, 6, ... horizontal.
enum class Pose { kGeneric, kAllHorizontal, kSomeHorizontal };

FourBarLatticeOptions lattice(int L, int K, bool merged, Pose pose, int& horizontal) {
  FourBarLatticeOptions o;
  o.levels = L;
  o.cells = K;
  o.merged_couplers = merged;
  o.crank_angle = pose == Pose::kAllHorizontal ? 0.0 : 1.1;
  horizontal = pose == Pose::kAllHorizontal ? L : 0;
  if (pose == Pose::kSomeHorizontal) {
    for (int l = 0; l < L; ++l) {
      o.level_angles.push_back(l % 3 == 0 ? 0.0 : (l % 3 == 1 ? 1.1 : 2.0));
      horizontal += l % 3 == 0;
    }
  }
  return o;
}

SparseMatrixCSR constraintJacobian(const Model& m) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const State s = initialState(m);
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  assembleConstraints(m, plan, s.q, s.t, nullptr, &Cq);
  return Cq;
}

double largestRowNorm(const SparseMatrixCSR& A) {
  double r = 0.0;
  for (Index i = 0; i < A.rows(); ++i) r = std::max(r, A.row(i).norm());
  return r;
}

/// The rows of A that `r` did not report redundant: there must be exactly rank of them, and
/// they must have full row rank (SuiteSparseQR of their transpose, same threshold).
void checkRetainedRowsIndependent(const SparseMatrixCSR& A, const BlockwiseRank& r,
                                  const std::string& tag) {
  std::vector<char> dropped(A.rows(), 0);
  for (Index row : r.redundant_rows) {
    BOOST_REQUIRE(row >= 0 && row < A.rows());
    BOOST_TEST(!dropped[row], tag << ": row " << row << " reported twice");
    dropped[row] = 1;
  }
  std::vector<Eigen::Triplet<double, int>> t;
  Index kept = 0;
  for (Index i = 0; i < A.rows(); ++i) {
    if (dropped[i]) continue;
    for (SparseMatrixCSR::InnerIterator it(A, i); it; ++it)
      t.emplace_back(kept, it.col(), it.value());
    ++kept;
  }
  BOOST_TEST(kept == r.rank, tag);
  SparseMatrixCSR B(kept, A.cols());
  B.setFromTriplets(t.begin(), t.end());
  BOOST_TEST(sparseQrRank(B, r.threshold, true).rank == kept,
             tag << ": the retained rows are not independent");
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_block_factor_of_random_matrices) {
  test::Random rnd(5);
  struct Shape {
    Index m, n, r;
  };
  for (const Shape& s : {Shape{6, 10, 6}, Shape{8, 10, 5}, Shape{9, 9, 7}, Shape{14, 9, 6},
                         Shape{12, 8, 8}, Shape{1, 4, 1}, Shape{5, 3, 0}}) {
    MatX B = MatX::Zero(s.m, s.n);
    if (s.r > 0) {
      MatX F(s.m, s.r), G(s.r, s.n);
      for (Index i = 0; i < F.size(); ++i) F(i) = rnd.uniform();
      for (Index i = 0; i < G.size(); ++i) G(i) = rnd.uniform();
      B = F * G;
    }
    const std::string tag =
        std::to_string(s.m) + " x " + std::to_string(s.n) + " of rank " + std::to_string(s.r);
    const double scale = s.r > 0 ? B.rowwise().norm().maxCoeff() : 1.0;
    const BlockFactor f = factorBlock(B, kDefaultRankTolerance * scale);
    BOOST_TEST(f.rank == s.r, tag);
    if (s.r > 0) BOOST_TEST(analyzeConstraintRank(B).rank == f.rank, tag);
    BOOST_TEST(f.largest_dropped < 1e-13 * scale, tag);
    BOOST_REQUIRE(f.null_basis.rows() == s.n && f.null_basis.cols() == s.n - s.r);
    test::checkClose(MatX(f.null_basis.transpose() * f.null_basis),
                     MatX::Identity(s.n - s.r, s.n - s.r), 1e-13, tag + ": Z orthonormal");
    test::checkClose(MatX(B * f.null_basis), MatX::Zero(s.m, s.n - s.r), 1e-12 * scale,
                     tag + ": B Z = 0");
    // The retained rows alone have the full rank.
    MatX kept(s.r, s.n);
    for (Index i = 0; i < s.r; ++i) kept.row(i) = B.row(f.pivot_rows[i]);
    if (s.r > 0) BOOST_TEST(analyzeConstraintRank(kept).rank == s.r, tag);
  }
}

// The closed forms for every size up to 21 x 21 would be 2646 models; these sizes cover 1,
// 2, small odd and even, and 21 in both directions, for both kinds and the three poses (the
// sizes stay small enough for the AddressSanitizer build of the CI).
BOOST_AUTO_TEST_CASE(lattices_against_closed_form_dense_qrcp_and_sparse_qr) {
  const int sizes[] = {1, 2, 3, 5, 8, 13, 21};
  int dense_checks = 0;
  for (bool merged : {false, true})
    for (int L : sizes)
      for (int K : sizes)
        for (Pose pose : {Pose::kGeneric, Pose::kAllHorizontal, Pose::kSomeHorizontal}) {
          int s = 0;
          const FourBarLatticeOptions o = lattice(L, K, merged, pose, s);
          const Model model = buildFourBarLattice(o);
          const SparseMatrixCSR A = constraintJacobian(model);
          const LatticeCounts cf = latticeCounts(L, K, merged, s);
          std::ostringstream tag;
          tag << (merged ? "merged " : "unmerged ") << L << " x " << K << ", " << s
              << " levels horizontal";
          BOOST_REQUIRE(model.nv == cf.n && model.nc == cf.m);
          // Block-wise with the lattice's own tree (two block sizes) and the generic bisection.
          for (const BlockTree& tree :
               {blockTreeForFourBarLattice(o, 1), blockTreeForFourBarLattice(o, merged ? 4 : 2),
                blockTreeByBisection(model, 6)}) {
            const BlockwiseRank r = analyzeBlockwiseRank(model, A, tree);
            BOOST_TEST(r.rank == cf.rank, tag.str() << ", " << tree.description);
            BOOST_TEST(static_cast<Index>(r.redundant_rows.size()) == cf.m - r.rank, tag.str());
            // Clear-cut decisions: every retained pivot far above the threshold, every dropped
            // one at round-off.
            BOOST_TEST(r.smallest_retained > 1e-8, tag.str() << ", " << tree.description);
            BOOST_TEST(r.largest_dropped < 1e-13, tag.str() << ", " << tree.description);
          }
          const double threshold = kDefaultRankTolerance * largestRowNorm(A);
          BOOST_TEST(sparseQrRank(A, threshold).rank == cf.rank, tag.str() << ": SPQR of A");
          BOOST_TEST(sparseQrRank(A, threshold, true).rank == cf.rank, tag.str()
                                                                           << ": SPQR of A^T");
          if (cf.n * cf.m <= 90000) {  // the dense QRCP for the small ones (n, m <= ~300)
            BOOST_TEST(analyzeConstraintRank(MatX(A)).rank == cf.rank, tag.str() << ": dense");
            ++dense_checks;
          }
        }
  BOOST_TEST(dense_checks > 100);
}

// Larger lattices, where the trees have several levels of merges with wide bases and the
// unblocked and blocked compressions both run: the block-wise rank and SuiteSparseQR against
// the closed form (the benchmark, benchmarks/lattice_rank.cpp, does the same up to 1e6 rows).
BOOST_AUTO_TEST_CASE(larger_lattices_against_closed_form_and_sparse_qr) {
  struct Size {
    bool merged;
    int L, K;
  };
  for (const Size& z : {Size{false, 64, 64}, Size{false, 24, 150}, Size{true, 40, 40}})
    for (Pose pose : {Pose::kGeneric, Pose::kSomeHorizontal}) {
      int s = 0;
      const FourBarLatticeOptions o = lattice(z.L, z.K, z.merged, pose, s);
      const Model model = buildFourBarLattice(o);
      const SparseMatrixCSR A = constraintJacobian(model);
      const LatticeCounts cf = latticeCounts(z.L, z.K, z.merged, s);
      std::ostringstream tag;
      tag << (z.merged ? "merged " : "unmerged ") << z.L << " x " << z.K << ", " << s
          << " levels horizontal";
      BOOST_REQUIRE(model.nv == cf.n && model.nc == cf.m);
      const BlockwiseRank r = analyzeBlockwiseRank(model, A, blockTreeForModel(model));
      BOOST_TEST(r.rank == cf.rank, tag.str());
      BOOST_TEST(static_cast<Index>(r.redundant_rows.size()) == cf.m - cf.rank, tag.str());
      BOOST_TEST(r.smallest_retained > 1e-8, tag.str());
      BOOST_TEST(r.largest_dropped < 1e-13, tag.str());
      BOOST_TEST(sparseQrRank(A, r.threshold, true).rank == cf.rank, tag.str() << ": SPQR");
    }
}

BOOST_AUTO_TEST_CASE(the_redundant_rows_depend_on_the_retained_ones) {
  for (bool merged : {false, true})
    for (Pose pose : {Pose::kGeneric, Pose::kAllHorizontal, Pose::kSomeHorizontal}) {
      int s = 0;
      const FourBarLatticeOptions o = lattice(7, 12, merged, pose, s);
      const Model model = buildFourBarLattice(o);
      const SparseMatrixCSR A = constraintJacobian(model);
      const std::string tag = std::string(merged ? "merged" : "unmerged") + " 7 x 12, " +
                              std::to_string(s) + " levels horizontal";
      const Index rank = latticeCounts(7, 12, merged, s).rank;
      for (const BlockTree& tree :
           {blockTreeForFourBarLattice(o, 3), blockTreeByBisection(model)}) {
        const BlockwiseRank r = analyzeBlockwiseRank(model, A, tree);
        BOOST_TEST(r.rank == rank, tag);
        checkRetainedRowsIndependent(A, r, tag + ", " + tree.description);
      }
    }
}

// n = 6N, m = 4(N - 1) + 4 + 3 (universal joints, the universal end_a, the spherical end_b),
// mobility 2N - 3 (generators.hpp): full row rank.
BOOST_AUTO_TEST_CASE(catenary_chains) {
  for (int N : {2, 4, 10, 50, 400}) {
    CatenaryChainOptions o;
    o.links = N;
    const Model model = buildCatenaryChain(o);
    const SparseMatrixCSR A = constraintJacobian(model);
    const Index rank = 4 * N + 3;
    BOOST_REQUIRE(model.nv == 6 * N && model.nc == rank);
    const std::string tag = "chain of " + std::to_string(N);
    for (const BlockTree& tree : {blockTreeForChain(N, 1), blockTreeForChain(N, 4),
                                  blockTreeByBisection(model, 3), blockTreeForModel(model)}) {
      const BlockwiseRank r = analyzeBlockwiseRank(model, A, tree);
      BOOST_TEST(r.rank == rank, tag << ", " << tree.description);
      BOOST_TEST(r.redundant_rows.empty(), tag);
      BOOST_TEST(r.smallest_retained > 1e-6, tag);
    }
    BOOST_TEST(sparseQrRank(A, kDefaultRankTolerance * largestRowNorm(A)).rank == rank, tag);
    if (N <= 50) BOOST_TEST(analyzeConstraintRank(MatX(A)).rank == rank, tag);
  }
}

// Every joint type (3D and 2D) between random bodies at random states: no closed form, the
// dense QRCP is the reference. Several random models joined into one model by a random merge.
BOOST_AUTO_TEST_CASE(random_models_against_the_dense_qrcp) {
  test::Random rnd(11);
  for (int dim : {3, 2})
    for (int nbodies : {3, 5, 9}) {
      const Model model = test::randomModel(rnd, dim, nbodies, false, false);
      const AssemblyPlan plan = buildAssemblyPlan(model);
      for (int trial = 0; trial < 3; ++trial) {
        const State s = test::randomState(rnd, model);
        SparseMatrixCSR A = makeConstraintMatrix(plan);
        assembleConstraints(model, plan, s.q, s.t, nullptr, &A);
        const ConstraintRank dense = analyzeConstraintRank(MatX(A));
        const std::string tag = std::to_string(dim) + "D, " + std::to_string(nbodies) +
                                " bodies, trial " + std::to_string(trial);
        // A random configuration is generic: the dense decision is clear-cut.
        BOOST_REQUIRE(dense.smallestRetained() > 1e-6 && dense.largestDropped() < 1e-12);
        for (Index max_bodies : {1, 2, 4}) {
          const BlockwiseRank r =
              analyzeBlockwiseRank(model, A, blockTreeByBisection(model, max_bodies));
          BOOST_TEST(r.rank == dense.rank, tag << ", blocks of " << max_bodies);
          checkRetainedRowsIndependent(A, r, tag);
        }
      }
    }
}

BOOST_AUTO_TEST_CASE(the_same_bits_for_1_2_and_3_threads) {
  // parallel_work = 0: every loop that may be split is split, so the split paths run too.
  BlockwiseRankOptions split;
  split.parallel_work = 0.0;
  struct Case {
    FourBarLatticeOptions o;
    int block;
  };
  std::vector<Case> cases;
  int s = 0;
  cases.push_back({lattice(40, 40, false, Pose::kSomeHorizontal, s), 2});
  cases.push_back({lattice(30, 50, true, Pose::kSomeHorizontal, s), 4});
  const int saved = omp_get_max_threads();
  for (const Case& c : cases)
    for (const BlockwiseRankOptions& options : {BlockwiseRankOptions{}, split}) {
      const Model model = buildFourBarLattice(c.o);
      const SparseMatrixCSR A = constraintJacobian(model);
      const BlockTree tree = blockTreeForFourBarLattice(c.o, c.block);
      omp_set_num_threads(1);
      const BlockwiseRank one = analyzeBlockwiseRank(model, A, tree, options);
      for (int threads : {2, 3}) {
        omp_set_num_threads(threads);
        const BlockwiseRank r = analyzeBlockwiseRank(model, A, tree, options);
        const std::string tag = tree.description + ", " + std::to_string(threads) + " threads";
        BOOST_TEST(r.rank == one.rank, tag);
        BOOST_TEST((r.redundant_rows == one.redundant_rows), tag);
        BOOST_TEST(test::bitwiseEqual(Eigen::Vector2d(r.smallest_retained, r.largest_dropped),
                                      Eigen::Vector2d(one.smallest_retained, one.largest_dropped)),
                   tag);
      }
    }
  omp_set_num_threads(saved);
}

BOOST_AUTO_TEST_CASE(trees_are_checked) {
  int s = 0;
  const FourBarLatticeOptions o = lattice(2, 2, false, Pose::kGeneric, s);
  const Model model = buildFourBarLattice(o);
  const SparseMatrixCSR A = constraintJacobian(model);
  BlockTree tree = blockTreeForFourBarLattice(o, 1);
  BlockTree twice = tree;
  twice.blocks[1].push_back(twice.blocks[0][0]);
  BOOST_CHECK_THROW(analyzeBlockwiseRank(model, A, twice), Error);
  BlockTree missing = tree;
  missing.blocks[0].pop_back();
  BOOST_CHECK_THROW(analyzeBlockwiseRank(model, A, missing), Error);
  BlockTree orphan = tree;
  orphan.merges.back().pop_back();
  BOOST_CHECK_THROW(analyzeBlockwiseRank(model, A, orphan), Error);
  BOOST_CHECK_THROW(blockTreeForFourBarLattice(o, 0), Error);
  // The generator's names lead to the lattice's own tree; other models to the bisection.
  BOOST_TEST(blockTreeForModel(model).description.find("four-bar lattice") == 0u);
  CatenaryChainOptions chain;
  chain.links = 6;
  BOOST_TEST(blockTreeForModel(buildCatenaryChain(chain)).description.find("chain") == 0u);
}

BOOST_AUTO_TEST_CASE(the_terse_report_lists_every_redundant_row) {
  int s = 0;
  const FourBarLatticeOptions o = lattice(3, 4, true, Pose::kAllHorizontal, s);
  const Model model = buildFourBarLattice(o);
  const BlockwiseRank r =
      analyzeBlockwiseRank(model, constraintJacobian(model), blockTreeForModel(model));
  std::ostringstream os;
  printTerseMobility(os, model, r);
  const LatticeCounts cf = latticeCounts(3, 4, true, 3);
  std::ostringstream head;
  head << "n " << cf.n << "\nm " << cf.m << "\nrank " << cf.rank << "\ndof " << cf.n - cf.rank
       << "\nredundant " << cf.m - cf.rank << "\n";
  BOOST_TEST(os.str().rfind(head.str(), 0) == 0u, os.str());
  std::size_t lines = 0;
  for (std::size_t at = os.str().find("redundant_row joint '"); at != std::string::npos;
       at = os.str().find("redundant_row joint '", at + 1))
    ++lines;
  BOOST_TEST(lines == static_cast<std::size_t>(cf.m - cf.rank));
}
