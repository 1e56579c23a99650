#define BOOST_TEST_MODULE klu_lu
// Direct KLU with refactorization (solvers/klu_lu.hpp) against a dense LU (Eigen, partial
// pivoting) on seeded random saddle-point matrices with a structurally zero (2,2) block (the
// KKT matrices of statics and generalized-alpha): the first factorization, refactorizations
// with new values that keep the pivots, values that spoil the old pivots (the condition
// estimate must send them back to a new factorization), forgetPivots, a singular matrix. On a
// four-bar lattice's KKT matrix: the saddle-point pivot order (solvers/kkt_ordering.hpp) is a
// valid order and solves as a dense LU does, and a dependent row is reported singular on either
// order (KLU stops only at exact zeros; solvers/klu_lu.hpp, kSingularPivot). On IDA's GGL
// Newton matrix of a lattice: the order with each body's q and v grouped.
#include <btf.h>
#include <camd.h>

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <algorithm>
#include <vector>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "formulations/mixed_basis/multibody_dae.hpp"
#include "model/four_bar_lattice.hpp"
#include "random_model.hpp"
#include "solvers/kkt_ordering.hpp"
#include "solvers/klu_lu.hpp"
#include "sparse_support.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

using test::Csr;
using test::Triplets;

/// [A B^T; B 0] with A = diag(d) + small random coupling (n x n) and B (m x n) with its first m
/// columns dominant; `tilt` rotates which entries of B are large, so new values can make the
/// pivots chosen for the old ones poor.
Csr saddlePoint(int n, int m, test::Random& rnd, double tilt) {
  Triplets t;
  for (int i = 0; i < n; ++i) {
    t.emplace_back(i, i, 2.0 + rnd.uniform());
    if (i + 1 < n) {
      const double c = 0.3 * rnd.uniform();
      test::addSymmetric(t, i, i + 1, c);
    }
  }
  for (int r = 0; r < m; ++r) {
    const double a = std::cos(tilt) * (1.0 + 0.1 * rnd.uniform());
    const double b = std::sin(tilt) * (1.0 + 0.1 * rnd.uniform());
    for (auto [col, v] :
         {std::pair{r, a}, std::pair{(r + 1) % n, b}, std::pair{m + r % (n - m), 0.1}}) {
      test::addSymmetric(t, n + r, col, v);
    }
  }
  return test::compressedCsr(n + m, n + m, t);
}

double solveError(KluLu& klu, const Csr& K, test::Random& rnd) {
  const int N = static_cast<int>(K.rows());
  VecX b(N);
  for (int i = 0; i < N; ++i) b(i) = rnd.uniform();
  VecX x = b;
  BOOST_REQUIRE(klu.solve(x.data()).ok());
  const VecX exact = MatX(K).partialPivLu().solve(b);
  return (x - exact).cwiseAbs().maxCoeff() / exact.cwiseAbs().maxCoeff();
}

/// Whether two factorizations of one n x n matrix solve a random right-hand side to the same
/// bits.
bool sameSolves(KluLu& a, KluLu& b, int n, test::Random& rnd) {
  VecX rhs(n);
  for (int i = 0; i < n; ++i) rhs(i) = rnd.uniform();
  VecX x1 = rhs, x2 = rhs;
  BOOST_REQUIRE(a.solve(x1.data()).ok());
  BOOST_REQUIRE(b.solve(x2.data()).ok());
  return (x1.array() == x2.array()).all();
}

/// Generalized-alpha's KKT matrix [1e4 M + K_c, s C_q^T; s C_q, 0] of an unmerged four-bar
/// lattice (levels x cells) at a random state, its coordinates first; `doubled` >= 0 appends a
/// constraint row 0.7 row `doubled` + 1.3 row `doubled + 1` (a dependent row).
Csr latticeKkt(int levels, int cells, test::Random& rnd, int& coordinates, int doubled = -1) {
  FourBarLatticeOptions o;
  o.levels = levels;
  o.cells = cells;
  const Model m = buildFourBarLattice(o);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  SparseMatrixCSR M = makeBodyMatrix(plan), Kc = makeBodyMatrix(plan),
                  Cq = makeConstraintMatrix(plan);
  const State s = test::randomState(rnd, m);
  assembleMass(m, plan, s.q, M);
  assembleConstraintStiffness(m, plan, s.q, s.t, s.lambda, Kc);
  assembleConstraints(m, plan, s.q, s.t, nullptr, &Cq);
  SparseMatrixCSR S = M;
  values(S) = 1e4 * values(M) + values(Kc);
  const double scale = constraintRowScale(S, Cq);
  const int n = static_cast<int>(m.nv), rows = static_cast<int>(m.nc) + (doubled >= 0 ? 1 : 0);
  Triplets t;
  for (int i = 0; i < n; ++i)
    for (SparseMatrixCSR::InnerIterator it(S, i); it; ++it)
      t.emplace_back(i, static_cast<int>(it.col()), it.value());
  for (int r = 0; r < m.nc; ++r)
    for (SparseMatrixCSR::InnerIterator it(Cq, r); it; ++it) {
      const int c = static_cast<int>(it.col());
      test::addSymmetric(t, n + r, c, scale * it.value());
      if (r == doubled || r == doubled + 1)
        test::addSymmetric(t, n + rows - 1, c, (r == doubled ? 0.7 : 1.3) * scale * it.value());
    }
  coordinates = n;
  return test::compressedCsr(n + rows, n + rows, t);
}

}  // namespace

BOOST_AUTO_TEST_CASE(refactorizations_solve_as_accurately_as_a_dense_lu) {
  test::Random rnd(7);
  const int n = 60, m = 20;
  const Csr K0 = saddlePoint(n, m, rnd, 0.3);
  KluLu klu(static_cast<int>(K0.rows()), K0.outerIndexPtr(), K0.innerIndexPtr());
  BOOST_REQUIRE(klu.factor(K0.valuePtr()).ok());
  BOOST_TEST(solveError(klu, K0, rnd) < 1e-12);
  for (int k = 0; k < 5; ++k) {  // small changes of the values: the pivots stay good
    const Csr K = saddlePoint(n, m, rnd, 0.3 + 0.01 * k);
    BOOST_REQUIRE(K.nonZeros() == K0.nonZeros());
    BOOST_REQUIRE(klu.factor(K.valuePtr()).ok());
    BOOST_TEST(solveError(klu, K, rnd) < 1e-12);
  }
  BOOST_TEST(klu.fullFactorizations() == 1);
  BOOST_TEST(klu.refactorizations() == 5);
}

BOOST_AUTO_TEST_CASE(spoiled_pivots_are_chosen_again) {
  test::Random rnd(11);
  const int n = 40, m = 15;
  // At tilt 0 B's large entries are on columns r, at pi/2 on columns r + 1: a pivot order made
  // for one is poor for the other (the old pivots of B become ~0).
  const Csr K0 = saddlePoint(n, m, rnd, 0.0);
  KluLu klu(static_cast<int>(K0.rows()), K0.outerIndexPtr(), K0.innerIndexPtr());
  BOOST_REQUIRE(klu.factor(K0.valuePtr()).ok());
  const Csr K1 = saddlePoint(n, m, rnd, 0.5 * M_PI - 1e-9);
  BOOST_REQUIRE(klu.factor(K1.valuePtr()).ok());
  const double error = solveError(klu, K1, rnd);
  BOOST_TEST_MESSAGE("after the tilt: " << klu.fullFactorizations() << " full factorizations, "
                                        << klu.refactorizations() << " refactorizations, error "
                                        << error);
  BOOST_TEST(error < 1e-10);
  // forgetPivots: the next factorization is a full one even for unchanged values.
  const int full = klu.fullFactorizations();
  klu.forgetPivots();
  BOOST_REQUIRE(klu.factor(K1.valuePtr()).ok());
  BOOST_TEST(klu.fullFactorizations() == full + 1);
  BOOST_TEST(solveError(klu, K1, rnd) < 1e-12);
}

// A coordinate whose row and column shrink by 1e-4 (a stiffness that vanishes along a Newton
// path): the kept pivots stay sound (the same pivot growth), but the crude condition estimate
// drops by 1e-8. Refused by default; kept where the caller accepts growth up to 1e5, and as
// accurate as a dense LU. Pivots spoiled by a tilt are chosen again either way.
BOOST_AUTO_TEST_CASE(a_shrunken_column_keeps_its_pivots_where_growth_decides) {
  test::Random rnd(13);
  const int n = 40, m = 15;
  const Csr K0 = saddlePoint(n, m, rnd, 0.3);
  Csr K1 = K0;
  const int j = 7;  // a coordinate
  for (int r = 0; r < K1.outerSize(); ++r)
    for (Csr::InnerIterator it(K1, r); it; ++it)
      it.valueRef() *= (r == j ? 1e-4 : 1.0) * (it.col() == j ? 1e-4 : 1.0);
  for (const bool growth : {false, true}) {
    KluLu klu(static_cast<int>(K0.rows()), K0.outerIndexPtr(), K0.innerIndexPtr());
    if (growth) klu.acceptRefactorizationGrowth(1e5);
    BOOST_REQUIRE(klu.factor(K0.valuePtr()).ok());
    BOOST_REQUIRE(klu.factor(K1.valuePtr()).ok());
    BOOST_TEST(klu.fullFactorizations() == (growth ? 1 : 2));
    BOOST_TEST(klu.lastRefactored() == growth);
    BOOST_TEST(solveError(klu, K1, rnd) < 1e-10);
    const Csr K2 = saddlePoint(n, m, rnd, 0.5 * M_PI - 1e-9);
    BOOST_REQUIRE(klu.factor(K2.valuePtr()).ok());
    BOOST_TEST(!klu.lastRefactored());
    BOOST_TEST(solveError(klu, K2, rnd) < 1e-10);
  }
}

// The saddle-point solver's way: the pattern moved in, the values written into values(), then
// factor(). Bitwise the same solution as the copying constructor and factor(values).
BOOST_AUTO_TEST_CASE(values_written_in_place_factor_as_a_copy) {
  test::Random rnd(5);
  const Csr K = saddlePoint(30, 10, rnd, 0.3);
  const int N = static_cast<int>(K.rows());
  KluLu copied(N, K.outerIndexPtr(), K.innerIndexPtr());
  KluLu moved(N, std::vector<int>(K.outerIndexPtr(), K.outerIndexPtr() + N + 1),
              std::vector<int>(K.innerIndexPtr(), K.innerIndexPtr() + K.nonZeros()));
  BOOST_REQUIRE(copied.factor(K.valuePtr()).ok());
  std::copy(K.valuePtr(), K.valuePtr() + K.nonZeros(), moved.values());
  BOOST_REQUIRE(moved.factor().ok());
  BOOST_TEST(sameSolves(copied, moved, N, rnd));
}

// The Schur decomposition drops the rows it moves to the interface from a block's analysis
// (solvers/interior_block.hpp, dropFromBlock): the result must be the analysis the reduced
// pattern and order get anew, to the last bit of every solve.
BOOST_AUTO_TEST_CASE(dropped_positions_analyse_as_the_reduced_pattern_anew) {
  test::Random rnd(13);
  const int n = 60, m = 20, N = n + m;
  const Csr K = saddlePoint(n, m, rnd, 0.3);
  std::vector<int> P(N), identity(N);
  for (int k = 0; k < N; ++k) P[k] = identity[k] = k;
  std::shuffle(P.begin(), P.end(), rnd.engine());  // the row order is not the column order
  const std::vector<int> dropped = {3, 45, 52, n + 3, n + 11, N - 1};
  std::vector<int> renumbered(N, 0);
  for (int p : dropped) renumbered[p] = -1;
  int kept = 0;
  for (int k = 0; k < N; ++k)
    if (renumbered[k] == 0) renumbered[k] = kept++;
  Triplets t;
  for (int i = 0; i < N; ++i)
    for (Csr::InnerIterator it(K, i); it; ++it)
      if (renumbered[i] >= 0 && renumbered[it.col()] >= 0)
        t.emplace_back(renumbered[i], renumbered[it.col()], it.value());
  const Csr R = test::compressedCsr(kept, kept, t);
  std::vector<int> P_reduced, identity_reduced(kept);
  for (int k = 0; k < N; ++k)
    if (renumbered[P[k]] >= 0) P_reduced.push_back(renumbered[P[k]]);
  for (int k = 0; k < kept; ++k) identity_reduced[k] = k;

  KluLu dropping(N, std::vector<int>(K.outerIndexPtr(), K.outerIndexPtr() + N + 1),
                 std::vector<int>(K.innerIndexPtr(), K.innerIndexPtr() + K.nonZeros()), P,
                 identity);
  BOOST_REQUIRE(dropping.factor(K.valuePtr()).ok());
  const std::vector<char> kept_entry = dropping.dropPositions(dropped);
  // The entries kept are those whose row and column are both kept, in the pattern's order.
  BOOST_REQUIRE(kept_entry.size() == static_cast<std::size_t>(K.nonZeros()));
  bool flags_right = true;
  for (int i = 0; i < N; ++i)
    for (int a = K.outerIndexPtr()[i]; a < K.outerIndexPtr()[i + 1]; ++a)
      flags_right &=
          (kept_entry[a] != 0) == (renumbered[i] >= 0 && renumbered[K.innerIndexPtr()[a]] >= 0);
  BOOST_TEST(flags_right);
  BOOST_TEST(positionsAfterDrop(N, dropped) == renumbered);
  BOOST_CHECK_THROW(positionsAfterDrop(N, {N}), Error);
  BOOST_CHECK_THROW(positionsAfterDrop(N, {3, 3}), Error);
  KluLu anew(kept, std::vector<int>(R.outerIndexPtr(), R.outerIndexPtr() + kept + 1),
             std::vector<int>(R.innerIndexPtr(), R.innerIndexPtr() + R.nonZeros()), P_reduced,
             identity_reduced);
  BOOST_TEST(
      std::equal(R.outerIndexPtr(), R.outerIndexPtr() + kept + 1, dropping.patternRowStart()));
  BOOST_TEST(
      std::equal(R.innerIndexPtr(), R.innerIndexPtr() + R.nonZeros(), dropping.patternColumns()));
  BOOST_TEST(std::equal(P_reduced.begin(), P_reduced.end(), dropping.givenRowOrder()));
  BOOST_REQUIRE(dropping.factor(R.valuePtr()).ok());
  BOOST_REQUIRE(anew.factor(R.valuePtr()).ok());
  BOOST_TEST(dropping.fullFactorizations() == 2);  // new pivots after the drop
  BOOST_TEST(dropping.refactorizations() == 0);
  BOOST_TEST(sameSolves(dropping, anew, kept, rnd));
  BOOST_TEST(solveError(dropping, R, rnd) < 1e-12);
}

BOOST_AUTO_TEST_CASE(a_singular_matrix_is_reported) {
  test::Random rnd(3);
  const int n = 20, m = 5;
  Csr K = saddlePoint(n, m, rnd, 0.3);
  KluLu klu(static_cast<int>(K.rows()), K.outerIndexPtr(), K.innerIndexPtr());
  BOOST_REQUIRE(klu.factor(K.valuePtr()).ok());
  // Constraint row 0 becomes zero: the matrix is singular, refactorization or not.
  for (Csr::InnerIterator it(K, n); it; ++it) it.valueRef() = 0.0;
  for (int r = 0; r < n; ++r)
    for (Csr::InnerIterator it(K, r); it; ++it)
      if (it.col() == n) it.valueRef() = 0.0;
  const Status st = klu.factor(K.valuePtr());
  BOOST_TEST(!st.ok());
  BOOST_TEST((st.code == Status::Code::kSingular));
  BOOST_TEST(st.message.find("singular") != std::string::npos, st.message);
  // The solver stays usable.
  const Csr K2 = saddlePoint(n, m, rnd, 0.3);
  BOOST_REQUIRE(klu.factor(K2.valuePtr()).ok());
  BOOST_TEST(solveError(klu, K2, rnd) < 1e-12);
}

// Each multiplier is eliminated right after a coordinate of its own row (whose elimination
// fills the multiplier's empty diagonal), every coordinate on its own diagonal entry.
BOOST_AUTO_TEST_CASE(the_saddle_point_order_puts_each_multiplier_after_a_coordinate_of_its_row) {
  test::Random rnd(17);
  int n = 0;
  const Csr K = latticeKkt(6, 8, rnd, n);
  const int N = static_cast<int>(K.rows());
  std::vector<int> P, Q;
  BOOST_REQUIRE(saddlePointPivotOrder(N, n, K.outerIndexPtr(), K.innerIndexPtr(), P, Q));
  BOOST_TEST(P == Q);
  std::vector<int> sorted = Q;
  std::sort(sorted.begin(), sorted.end());
  for (int k = 0; k < N; ++k) BOOST_REQUIRE(sorted[k] == k);
  for (int k = 0; k < N; ++k) {
    if (Q[k] < n) {
      BOOST_TEST(K.coeff(Q[k], Q[k]) != 0.0);
    } else {
      BOOST_REQUIRE(k > 0);
      BOOST_TEST(Q[k - 1] < n);
      BOOST_TEST(K.coeff(Q[k], Q[k - 1]) != 0.0, "multiplier " << Q[k] << " after " << Q[k - 1]);
    }
  }
}

// IDA's index-2 (GGL) Newton matrix of a 3 x 4 four-bar lattice at a random state
// (formulations/mixed_basis): the position multipliers' equations C(q) = 0 hold positions only
// and their columns lie in the velocities' equations, so no single coordinate fills their
// diagonal. With each body's q and v one group (as the IDA system orders it), the order is a
// permutation, each group's coordinates come together and before its multipliers, the
// multipliers a coordinate of the group fills (mu) before the others (lambda), and KLU solves
// with it as a dense LU does.
BOOST_AUTO_TEST_CASE(the_grouped_order_serves_the_ggl_newton_matrix) {
  FourBarLatticeOptions o;
  o.levels = 3;
  o.cells = 4;
  const Model m = buildFourBarLattice(o);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  MultibodyDae dae(m, plan, IdaFormulation::kIndex2);
  const DaeLayout& L = dae.layout();
  test::Random rnd(29);
  const State s = test::randomState(rnd, m);
  VecX y = VecX::Zero(L.size), yp = VecX::Zero(L.size);
  y.segment(L.q, L.nq) = s.q;
  y.segment(L.v, L.nv) = s.v;
  y.segment(L.lambda, L.nc) = s.lambda;
  for (Index i = 0; i < L.size; ++i) yp(i) = rnd.uniform(-3.0, 3.0);
  const SparseMatrixCSR& J = dae.newtonMatrix(s.t, y.data(), yp.data(), 20.0);
  const int N = static_cast<int>(J.rows()), n = static_cast<int>(L.nq + L.nv);
  std::vector<int> group(n);
  for (Index i = 0; i < L.nq; ++i) group[i] = static_cast<int>(i / m.nq_body);
  for (Index i = 0; i < L.nv; ++i) group[L.nq + i] = static_cast<int>(i / m.nv_body);
  std::vector<int> P, Q;
  BOOST_REQUIRE(saddlePointPivotOrder(N, n, J.outerIndexPtr(), J.innerIndexPtr(), P, Q, {}, group));
  BOOST_TEST(P == Q);
  std::vector<int> sorted = Q;
  std::sort(sorted.begin(), sorted.end());
  for (int k = 0; k < N; ++k) BOOST_REQUIRE(sorted[k] == k);
  const int per_group = static_cast<int>(m.nq_body + m.nv_body);
  int k = 0;
  while (k < N) {
    BOOST_REQUIRE_MESSAGE(Q[k] < n, "position " << k << ": multiplier " << Q[k] << " first");
    const int g = group[Q[k]];
    for (int i = 0; i < per_group; ++i, ++k)
      BOOST_REQUIRE_MESSAGE(k < N && Q[k] < n && group[Q[k]] == g,
                            "group " << g << " is not contiguous at position " << k);
    bool lambda_seen = false;
    for (; k < N && Q[k] >= n; ++k) {
      const bool lambda = Q[k] < L.mu;
      BOOST_TEST(!(lambda_seen && !lambda), "mu " << Q[k] << " after a lambda in group " << g);
      lambda_seen = lambda_seen || lambda;
    }
  }
  KluLu klu(N, std::vector<int>(J.outerIndexPtr(), J.outerIndexPtr() + N + 1),
            std::vector<int>(J.innerIndexPtr(), J.innerIndexPtr() + J.nonZeros()), n, group);
  BOOST_TEST(klu.saddlePointOrder());
  BOOST_REQUIRE(klu.factor(J.valuePtr()).ok());
  Csr K = J;
  BOOST_TEST(solveError(klu, K, rnd) < 1e-10);
}

// Two constraint rows on one coordinate only: no row matching, no order (KLU's own then);
// nor with an entry in the (2,2) block.
BOOST_AUTO_TEST_CASE(no_saddle_point_order_without_a_row_matching) {
  Triplets t;
  for (int i = 0; i < 3; ++i) t.emplace_back(i, i, 1.0);
  test::addSymmetric(t, 3, 0, 1.0);
  test::addSymmetric(t, 4, 0, 2.0);
  const Csr K = test::compressedCsr(5, 5, t);
  std::vector<int> P, Q;
  BOOST_TEST(!saddlePointPivotOrder(5, 3, K.outerIndexPtr(), K.innerIndexPtr(), P, Q));
  BOOST_TEST(P.empty());
  BOOST_TEST(Q.empty());
  // A regular matrix with an entry in the (2,2) block is not a saddle point of this form.
  Triplets u;
  for (int i = 0; i < 3; ++i) u.emplace_back(i, i, 1.0);
  test::addSymmetric(u, 3, 0, 1.0);
  test::addSymmetric(u, 4, 1, 1.0);
  u.emplace_back(4, 4, 0.5);
  const Csr L = test::compressedCsr(5, 5, u);
  BOOST_TEST(!saddlePointPivotOrder(5, 3, L.outerIndexPtr(), L.innerIndexPtr(), P, Q));
}

// A planar mesh of loops is where KLU's own search of a zero-free diagonal gives up within its
// work limit: the saddle-point order is taken, and solves as a dense LU does.
BOOST_AUTO_TEST_CASE(a_mesh_of_loops_is_factored_on_the_saddle_point_order) {
  test::Random rnd(19);
  int n = 0;
  const Csr K = latticeKkt(12, 12, rnd, n);
  const int N = static_cast<int>(K.rows());
  KluLu klu(N, std::vector<int>(K.outerIndexPtr(), K.outerIndexPtr() + N + 1),
            std::vector<int>(K.innerIndexPtr(), K.innerIndexPtr() + K.nonZeros()), n);
  BOOST_TEST_REQUIRE(klu.saddlePointOrder());
  BOOST_REQUIRE(klu.factor(K.valuePtr()).ok());
  BOOST_TEST(solveError(klu, K, rnd) < 1e-10);
}

// A combination of two constraint rows added: KLU's pivot there can be round-off, not an exact
// zero; the pivot test reports the matrix singular, with and without the saddle-point order.
BOOST_AUTO_TEST_CASE(a_dependent_row_is_singular_on_either_order) {
  for (const int doubled : {0, 57, 130}) {
    test::Random rnd(23);
    int n = 0;
    const Csr K = latticeKkt(12, 12, rnd, n, doubled);
    const int N = static_cast<int>(K.rows());
    for (const int coordinates : {0, n}) {
      KluLu klu(N, std::vector<int>(K.outerIndexPtr(), K.outerIndexPtr() + N + 1),
                std::vector<int>(K.innerIndexPtr(), K.innerIndexPtr() + K.nonZeros()), coordinates);
      const Status st = klu.factor(K.valuePtr());
      BOOST_TEST(!st.ok(), "row " << doubled << " doubled, coordinates " << coordinates);
      BOOST_TEST_MESSAGE("row " << doubled << ", order " << klu.saddlePointOrder() << ": "
                                << st.message);
      BOOST_TEST((st.code == Status::Code::kSingular), st.message);
      BOOST_TEST(st.message.find("singular") != std::string::npos, st.message);
    }
  }
}

// The order-given factorization (solvers/schur_decomposition.hpp reads its factors in place):
// the accessors' L and U multiply to P F Q with F = K^T, the given order's flagged columns are
// the last pivots (CAMD, kkt_ordering.hpp's constrainedOrder), and a singular matrix lists its
// dependent columns instead of stopping at the first.
BOOST_AUTO_TEST_CASE(order_given_factors_reproduce_the_matrix) {
  test::Random rnd(17);
  int n = 0;
  const Csr K = latticeKkt(2, 3, rnd, n);
  const int N = static_cast<int>(K.rows());
  std::vector<char> last(N, 0);
  for (int j : {3, 10, N - 2}) last[j] = 1;
  const std::vector<int> order = constrainedOrder(N, K.outerIndexPtr(), K.innerIndexPtr(), last);
  for (int k = 0; k < N; ++k)
    BOOST_TEST((last[order[k]] != 0) == (k >= N - 3), "pivot " << k << " column " << order[k]);
  KluLu klu(N, std::vector<int>(K.outerIndexPtr(), K.outerIndexPtr() + N + 1),
            std::vector<int>(K.innerIndexPtr(), K.innerIndexPtr() + K.nonZeros()), order, order);
  BOOST_REQUIRE(klu.factor(K.valuePtr()).ok());
  MatX L = MatX::Identity(N, N), U = MatX::Zero(N, N);
  for (int k = 0; k < N; ++k) {
    const KluLu::FactorColumn l = klu.lowerColumn(k), u = klu.upperColumn(k);
    for (int r = 0; r < l.size; ++r) {
      BOOST_TEST(l.rows[r] > k);
      L(l.rows[r], k) = l.values[r];
    }
    for (int r = 0; r < u.size; ++r) {
      BOOST_TEST(u.rows[r] < k);
      U(u.rows[r], k) = u.values[r];
    }
    U(k, k) = klu.upperDiagonal(k);
    BOOST_TEST(klu.columnOrder()[k] == order[k]);
  }
  const MatX F = MatX(K).transpose();
  MatX PFQ(N, N);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) PFQ(i, j) = F(klu.rowPivots()[i], klu.columnOrder()[j]);
  BOOST_TEST((L * U - PFQ).cwiseAbs().maxCoeff() <= 1e-12 * F.cwiseAbs().maxCoeff());
  BOOST_TEST(klu.singularColumns().empty());
  // A row order apart from the column order (a transversal's, as the Schur decomposition's
  // blocks take) is kept as given.
  std::vector<int> P, Q;
  BOOST_REQUIRE(matchedOrder(N, K.outerIndexPtr(), K.innerIndexPtr(), last, 0.0, P, Q));
  BOOST_TEST(P != Q);
  const KluLu matched(N, std::vector<int>(K.outerIndexPtr(), K.outerIndexPtr() + N + 1),
                      std::vector<int>(K.innerIndexPtr(), K.innerIndexPtr() + K.nonZeros()), P, Q);
  for (int k = 0; k < N; ++k) {
    BOOST_TEST(matched.givenRowOrder()[k] == P[k]);
    BOOST_TEST(matched.columnOrder()[k] == Q[k]);
  }

  int n2 = 0;
  const Csr D = latticeKkt(2, 3, rnd, n2, 4);  // one dependent constraint row
  const int N2 = static_cast<int>(D.rows());
  const std::vector<int> order2 = constrainedOrder(N2, D.outerIndexPtr(), D.innerIndexPtr(), {});
  KluLu singular(N2, std::vector<int>(D.outerIndexPtr(), D.outerIndexPtr() + N2 + 1),
                 std::vector<int>(D.innerIndexPtr(), D.innerIndexPtr() + D.nonZeros()), order2,
                 order2);
  const Status st = singular.factor(D.valuePtr());
  BOOST_TEST((st.code == Status::Code::kSingular), st.message);
  // At least the dependency's own column; KLU's continued elimination may leave a second pivot
  // at round-off (2 here), which the caller moves too.
  BOOST_TEST(!singular.singularColumns().empty());
  BOOST_TEST(singular.singularColumns().size() <= 2u);
}

// matchedOrder hands CAMD the matched pattern's transpose, taken from F's columns (F
// structurally symmetric): the order must be CAMD's on the matched pattern B itself (F with row
// i renamed match[i]), which CAMD sorts and transposes on its own, flags included.
BOOST_AUTO_TEST_CASE(matched_order_is_camds_order_of_the_renamed_pattern) {
  test::Random rnd(29);
  for (int doubled : {-1, 4}) {
    int n = 0;
    const Csr K = latticeKkt(6, 8, rnd, n, doubled);
    const int N = static_cast<int>(K.rows());
    const int* Ap = K.outerIndexPtr();
    const int* Ai = K.innerIndexPtr();
    std::vector<char> last(N, 0);
    for (int j : {1, N / 3, N - 5, N - 1}) last[j] = 1;
    std::vector<int> P, Q;
    BOOST_REQUIRE(matchedOrder(N, Ap, Ai, last, 0.0, P, Q));
    // The definition: btf_maxtrans's matching, B's rows renamed, CAMD on B.
    std::vector<int> match(N), work(5 * N), row_of(N), Bi(Ap[N]), set(N, 0), order(N);
    double btf_work = 0.0;
    BOOST_REQUIRE(btf_maxtrans(N, N, const_cast<int*>(Ap), const_cast<int*>(Ai), 0.0, &btf_work,
                               match.data(), work.data()) == N);
    for (int i = 0; i < N; ++i) row_of[match[i]] = i;
    for (int k = 0; k < Ap[N]; ++k) Bi[k] = match[Ai[k]];
    for (int j = 0; j < N; ++j) set[j] = last[j] || last[row_of[j]] ? 1 : 0;
    double control[CAMD_CONTROL], info[CAMD_INFO];
    camd_defaults(control);
    const int status = camd_order(N, Ap, Bi.data(), order.data(), control, info, set.data());
    BOOST_REQUIRE((status == CAMD_OK || status == CAMD_OK_BUT_JUMBLED));
    BOOST_TEST(status == CAMD_OK_BUT_JUMBLED);  // the renaming unsorts B's columns
    BOOST_TEST(Q == order, "doubled " << doubled);
    int differ = 0;
    for (int k = 0; k < N; ++k) differ += P[k] != row_of[order[k]] ? 1 : 0;
    BOOST_TEST(differ == 0, "doubled " << doubled);
  }
}

// The two halves of an order-given solve (the Schur decomposition's one sweep per block) give
// KLU's own solve, and in between y is U^-T Q^T b: changing it by U^-T Q^T c solves for b - c.
BOOST_AUTO_TEST_CASE(order_given_solve_halves_equal_the_solve) {
  test::Random rnd(23);
  int n = 0;
  const Csr K = latticeKkt(2, 3, rnd, n);
  const int N = static_cast<int>(K.rows());
  std::vector<int> P, Q;
  BOOST_REQUIRE(matchedOrder(N, K.outerIndexPtr(), K.innerIndexPtr(), {}, 0.0, P, Q));
  KluLu klu(N, std::vector<int>(K.outerIndexPtr(), K.outerIndexPtr() + N + 1),
            std::vector<int>(K.innerIndexPtr(), K.innerIndexPtr() + K.nonZeros()), P, Q);
  BOOST_REQUIRE(klu.factor(K.valuePtr()).ok());
  VecX b(N), c(N);
  for (int i = 0; i < N; ++i) {
    b(i) = rnd.uniform(-1.0, 1.0);
    c(i) = rnd.uniform(-1.0, 1.0);
  }
  VecX x = b, y(N), yc(N), halves(N);
  BOOST_REQUIRE(klu.solve(x.data()).ok());
  klu.upperTransposedSolve(b.data(), y.data());
  VecX y_copy = y;
  klu.lowerTransposedSolve(y_copy.data(), halves.data());
  const double scale = x.cwiseAbs().maxCoeff();
  BOOST_TEST((halves - x).cwiseAbs().maxCoeff() <= 1e-13 * scale);
  BOOST_TEST((MatX(K) * halves - b).cwiseAbs().maxCoeff() <= 1e-12 * b.cwiseAbs().maxCoeff());
  klu.upperTransposedSolve(c.data(), yc.data());
  y -= yc;
  klu.lowerTransposedSolve(y.data(), halves.data());
  const VecX bc = b - c;
  BOOST_TEST((MatX(K) * halves - bc).cwiseAbs().maxCoeff() <= 1e-12 * bc.cwiseAbs().maxCoeff());
}
