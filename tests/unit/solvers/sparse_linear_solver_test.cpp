#define BOOST_TEST_MODULE sparse_linear_solver
// The PETSc sparse solver over a fixed CSR pattern (solvers/sparse_linear_solver.hpp) against an
// independent dense LU (Eigen, partial pivoting) on seeded random matrices: nonsymmetric
// diagonally dominant ones, and saddle-point ones whose (2,2) block is structurally zero (what
// the IDA Newton matrices look like); refactoring with new values; a singular matrix (KLU and
// MUMPS); iterative KSP options, and a block preconditioner that cannot start; invalid patterns
// and index overflow.
#include <petscsys.h>

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <cstdint>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "petsc_fixture.hpp"
#include "solvers/sparse_linear_solver.hpp"
#include "sparse_support.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

using test::Csr;
using test::Triplets;

/// n x n, about `per_row` random off-diagonal entries per row, diagonal dominant by a factor 2:
/// well conditioned (condition number ~ 3), nonsymmetric in pattern and values.
Csr randomNonsymmetric(int n, int per_row, test::Random& rnd) {
  Triplets t;
  std::uniform_int_distribution<int> col(0, n - 1);
  for (int i = 0; i < n; ++i) {
    double sum = 0.0;
    for (int k = 0; k < per_row; ++k) {
      const int j = col(rnd.engine());
      if (j == i) continue;
      const double v = rnd.uniform();
      t.emplace_back(i, j, v);
      sum += std::abs(v);  // duplicates add up, |a + b| <= |a| + |b| keeps dominance
    }
    t.emplace_back(i, i, (rnd.uniform() < 0 ? -1.0 : 1.0) * (2.0 * sum + 1.0));
  }
  return test::compressedCsr(n, n, t);
}

/// [A B^T; B 0]: A (n x n) symmetric positive definite, B (m x n) of full row rank (its first m
/// columns are diagonally dominant), and no diagonal entries at all in the (2,2) block.
Csr randomSaddlePoint(int n, int m, test::Random& rnd) {
  Triplets t;
  std::uniform_int_distribution<int> col(0, n - 1);
  std::vector<double> row_sum(n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 2; ++k) {
      const int j = col(rnd.engine());
      if (j == i) continue;
      const double v = rnd.uniform();
      test::addSymmetric(t, i, j, v);
      row_sum[i] += std::abs(v);
      row_sum[j] += std::abs(v);
    }
  for (int i = 0; i < n; ++i) t.emplace_back(i, i, row_sum[i] + 1.0 + rnd.uniform(0, 1));
  for (int r = 0; r < m; ++r) {
    double sum = 0.0;
    for (int k = 0; k < 3; ++k) {
      const int j = m + col(rnd.engine()) % (n - m);
      const double v = rnd.uniform();
      test::addSymmetric(t, n + r, j, v);
      sum += std::abs(v);
    }
    const double d = 2.0 * sum + 1.0;
    test::addSymmetric(t, n + r, r, d);
  }
  return test::compressedCsr(n + m, n + m, t);
}

std::span<const int> rowStart(const Csr& A) {
  return {A.outerIndexPtr(), static_cast<std::size_t>(A.rows() + 1)};
}
std::span<const int> columns(const Csr& A) {
  return {A.innerIndexPtr(), static_cast<std::size_t>(A.nonZeros())};
}
std::span<const double> values(const Csr& A) {
  return {A.valuePtr(), static_cast<std::size_t>(A.nonZeros())};
}
std::span<const double> in(const VecX& x) {
  return {x.data(), static_cast<std::size_t>(x.size())};
}
std::span<double> out(VecX& x) {
  return {x.data(), static_cast<std::size_t>(x.size())};
}

/// Solves A x = b with the solver (factored with A's values) and compares with a dense LU:
/// |x - x_dense| <= tol max(1, |x_dense|) entrywise.
void checkSolve(SparseLinearSolver& s, const Csr& A, test::Random& rnd, double tol,
                const std::string& what) {
  const Status f = s.factor(values(A));
  BOOST_REQUIRE_MESSAGE(f.ok(), what << ": " << f.message);
  VecX b(A.rows());
  for (Eigen::Index i = 0; i < b.size(); ++i) b(i) = rnd.uniform();
  VecX x(A.rows());
  const Status st = s.solve(in(b), out(x));
  BOOST_REQUIRE_MESSAGE(st.ok(), what << ": " << st.message);
  const VecX dense = Eigen::MatrixXd(A).partialPivLu().solve(b);
  test::checkClose(x, dense, tol, what);
}

void setOption(const std::string& name, const std::string& value) {
  BOOST_REQUIRE(PetscOptionsSetValue(nullptr, name.c_str(), value.c_str()) == 0);
}

}  // namespace

BOOST_AUTO_TEST_CASE(petsc_is_initialized_by_the_fixture) {
  BOOST_TEST(petscInitialized());
}

BOOST_AUTO_TEST_CASE(random_nonsymmetric_matrices_match_a_dense_lu) {
  test::Random rnd(11);
  for (int n : {1, 7, 60, 400}) {
    const Csr A = randomNonsymmetric(n, 5, rnd);
    SparseLinearSolver s(rowStart(A), columns(A), "");
    BOOST_TEST(s.size() == n);
    BOOST_TEST(s.nonZeros() == A.nonZeros());
    BOOST_TEST(s.description() == "klu");  // the default package (solvers/factorization.hpp)
    checkSolve(s, A, rnd, 1e-12, "n = " + std::to_string(n));
  }
  // KLU's COLAMD default is set only while PETSc creates the factorization: the options of
  // the other KLU users (statics, modal) stay as given.
  PetscBool left = PETSC_TRUE;
  BOOST_REQUIRE(PetscOptionsHasName(nullptr, nullptr, "-mat_klu_ordering", &left) == 0);
  BOOST_TEST(!left);
}

// The same pattern given with 64-bit indices (SUNDIALS' sunindextype) gives the same answer.
BOOST_AUTO_TEST_CASE(sixty_four_bit_indices) {
  test::Random rnd(12);
  const Csr A = randomNonsymmetric(50, 4, rnd);
  const std::vector<std::int64_t> rows(A.outerIndexPtr(), A.outerIndexPtr() + A.rows() + 1),
      cols(A.innerIndexPtr(), A.innerIndexPtr() + A.nonZeros());
  SparseLinearSolver s(std::span<const std::int64_t>(rows), std::span<const std::int64_t>(cols),
                       "");
  checkSolve(s, A, rnd, 1e-12, "64-bit pattern");
}

// A zero (2,2) block with no stored diagonal: KLU pivots (PETSc's own LU would stop with
// "missing diagonal entry", TOOLCHAIN.md pitfall 4), and so does MUMPS.
BOOST_AUTO_TEST_CASE(saddle_point_with_zero_diagonal_block) {
  test::Random rnd(13);
  setOption("-kktmumps_pc_factor_mat_solver_type", "mumps");
  for (const auto& [n, m] : {std::pair{20, 8}, std::pair{150, 60}}) {
    const Csr K = randomSaddlePoint(n, m, rnd);
    for (int i = n; i < n + m; ++i) BOOST_REQUIRE(K.coeff(i, i) == 0.0);
    const Eigen::MatrixXd dense = K;
    const VecX sigma = Eigen::JacobiSVD<Eigen::MatrixXd>(dense).singularValues();
    const double cond = sigma(0) / sigma(sigma.size() - 1);
    BOOST_TEST_MESSAGE("  saddle point " << n << " + " << m << ", condition number " << cond);
    BOOST_REQUIRE(cond < 1e4);
    // Forward error bound ~ cond eps, with margin.
    SparseLinearSolver klu(rowStart(K), columns(K), "");
    checkSolve(klu, K, rnd, 1e-11, "saddle point, klu");
    SparseLinearSolver mumps(rowStart(K), columns(K), "kktmumps_");
    BOOST_TEST(mumps.description() == "mumps");
    checkSolve(mumps, K, rnd, 1e-11, "saddle point, mumps");
  }
}

BOOST_AUTO_TEST_CASE(refactor_with_new_values) {
  test::Random rnd(14);
  const Csr A = randomNonsymmetric(80, 5, rnd);
  Csr B = A;
  for (Eigen::Index k = 0; k < B.nonZeros(); ++k) B.valuePtr()[k] *= 1.0 + 0.5 * rnd.uniform();
  SparseLinearSolver s(rowStart(A), columns(A), "");
  checkSolve(s, A, rnd, 1e-12, "first values");
  checkSolve(s, B, rnd, 1e-12, "second values");
  checkSolve(s, A, rnd, 1e-12, "first values again");
  // b and x may be the same vector.
  VecX b = VecX::LinSpaced(80, -1.0, 1.0);
  const VecX expected = Eigen::MatrixXd(A).partialPivLu().solve(b);
  BOOST_REQUIRE(s.solve(in(b), out(b)).ok());
  test::checkClose(b, expected, 1e-12, "aliased b and x");
  BOOST_TEST(s.stats().factorizations == 3);
  BOOST_TEST(s.stats().solves == 4);
  BOOST_TEST(s.stats().iterations == 0);  // KSP preonly
  BOOST_TEST(s.stats().factor_seconds > 0.0);
}

// Two equal rows: kSingular with the package's diagnosis, no solve, and the solver recovers
// when given good values again. KLU reports it as an error, MUMPS as a failed reason
// (solvers/factorization.hpp): both paths.
BOOST_AUTO_TEST_CASE(singular_matrix_is_a_status) {
  setOption("-singmumps_pc_factor_mat_solver_type", "mumps");
  for (const std::string prefix : {"", "singmumps_"}) {
    test::Random rnd(15);
    const Csr A = randomNonsymmetric(40, 4, rnd);
    Csr S = A;
    for (int k = S.outerIndexPtr()[7]; k < S.outerIndexPtr()[8]; ++k) S.valuePtr()[k] = 0.0;
    SparseLinearSolver s(rowStart(A), columns(A), prefix);
    const Status f = s.factor(values(S));
    BOOST_TEST_MESSAGE("  " << s.description() << ": " << f.message);
    BOOST_TEST(!f.ok());
    BOOST_TEST((f.code == Status::Code::kSingular));
    BOOST_TEST(f.message.find("40 x 40") != std::string::npos);
    BOOST_TEST(f.message.find(s.description()) != std::string::npos);
    VecX b = VecX::Ones(40), x(40);
    const Status st = s.solve(in(b), out(x));
    BOOST_TEST(!st.ok());
    BOOST_TEST(st.message.find("without a valid factorization") != std::string::npos);
    checkSolve(s, A, rnd, 1e-12, s.description() + " after a singular matrix");
  }
}

// Iterative options through PETSc's options database under the prefix: GMRES with ILU(0)
// converges to the dense answer; GMRES without a preconditioner and 2 iterations does not,
// and says why.
BOOST_AUTO_TEST_CASE(iterative_options) {
  test::Random rnd(16);
  const Csr A = randomNonsymmetric(300, 5, rnd);
  setOption("-iter_ksp_type", "gmres");
  setOption("-iter_pc_type", "ilu");
  setOption("-iter_ksp_rtol", "1e-13");
  SparseLinearSolver s(rowStart(A), columns(A), "iter_");
  BOOST_TEST(s.description() == "gmres + ilu");
  checkSolve(s, A, rnd, 1e-10, "gmres + ilu");
  BOOST_TEST(s.stats().iterations > 1);

  setOption("-short_ksp_type", "gmres");
  setOption("-short_pc_type", "none");
  setOption("-short_ksp_max_it", "2");
  SparseLinearSolver t(rowStart(A), columns(A), "short_");
  BOOST_REQUIRE(t.factor(values(A)).ok());
  VecX b = VecX::Ones(300), x(300);
  const Status st = t.solve(in(b), out(x));
  BOOST_TEST_MESSAGE("  " << st.message);
  BOOST_TEST((st.code == Status::Code::kNotConverged));
  BOOST_TEST(st.message.find("DIVERGED_ITS") != std::string::npos);
  BOOST_TEST(st.message.find("gmres + none") != std::string::npos);

  // Block Jacobi with ILU(0) blocks cannot start on a zero diagonal: factor() says so in
  // PETSc's words (the blocks are set up there, not in the first solve).
  setOption("-blocks_ksp_type", "gmres");
  setOption("-blocks_pc_type", "bjacobi");
  const Csr K = randomSaddlePoint(30, 10, rnd);
  SparseLinearSolver u(rowStart(K), columns(K), "blocks_");
  const Status f = u.factor(values(K));
  BOOST_TEST_MESSAGE("  " << f.message);
  BOOST_TEST(!f.ok());
  BOOST_TEST(f.message.find("missing diagonal entry") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(invalid_patterns_are_refused) {
  auto refused = [](std::vector<int> rows, std::vector<int> cols, const std::string& expect) {
    try {
      SparseLinearSolver s(std::span<const int>(rows), std::span<const int>(cols), "");
      BOOST_ERROR("accepted a pattern that should fail with '" << expect << "'");
    } catch (const Error& e) {
      BOOST_TEST_MESSAGE("  " << e.what());
      BOOST_TEST(std::string(e.what()).find(expect) != std::string::npos);
    }
  };
  refused({0, 2, 3}, {1, 0, 1}, "not strictly increasing");
  refused({0, 1, 2}, {0, 2}, "outside [0, 2)");
  refused({0, 1, 3}, {0, 1}, "row pointers end at 3 but there are 2");
  refused({1, 1, 2}, {0, 1}, "must start at 0");
  refused({0, 2, 1, 3}, {0, 1, 2}, "row 1 runs from 2 to 1");
  refused({0}, {}, "n + 1 >= 2");
  // An index that does not fit PETSc's 32-bit PetscInt: refused before anything is allocated.
  const std::vector<std::int64_t> rows = {0, std::int64_t{3} << 31}, cols;
  try {
    SparseLinearSolver s(std::span<const std::int64_t>(rows), std::span<const std::int64_t>(cols),
                         "");
    BOOST_ERROR("accepted 6.4e9 nonzeros with 32-bit PetscInt");
  } catch (const Error& e) {
    BOOST_TEST_MESSAGE("  " << e.what());
    BOOST_TEST(std::string(e.what()).find("does not fit PETSc's") != std::string::npos);
  }
  // Values of the wrong count.
  const std::vector<int> r = {0, 1, 2}, c = {0, 1};
  SparseLinearSolver s(std::span<const int>(r), std::span<const int>(c), "");
  const std::vector<double> three = {1.0, 2.0, 3.0};
  BOOST_CHECK_THROW(s.factor(three), Error);
}
