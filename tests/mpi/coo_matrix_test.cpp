#define BOOST_TEST_MODULE coo_matrix
// parallel/petsc_coo_matrix.hpp on 1, 2 and 4 ranks: every rank lists random entries anywhere
// in the matrix (other ranks' rows, repeats, entries whose values cancel), uneven row ranges
// (rank 2 of 4 owns none); the owned rows equal the dense sum of every rank's entries, pattern
// and values (small integers: sums exact in any order), after each of two refills; MatMult
// agrees with the dense product; PETSc's own COO assembly of the same entries gives the same
// matrix; the same values give the same bits every time.
#include <boost/test/unit_test.hpp>

#include <petscmat.h>

#include <random>
#include <set>
#include <vector>

#include <Eigen/Dense>

#include "core/check.hpp"
#include "mpi_support.hpp"
#include "parallel/petsc_coo_matrix.hpp"
#include "petsc_fixture.hpp"

using namespace catena;
using namespace catena::test;

namespace {

/// Rows owned by rank r: uneven, none on rank 2.
int ownedRows(int r) {
  return r == 2 ? 0 : 4 + 3 * r;
}
int firstRow(int r) {
  int first = 0;
  for (int k = 0; k < r; ++k) first += ownedRows(k);
  return first;
}
int matrixSize() {
  return firstRow(worldSize());
}

/// The entries rank r lists: random positions, a third repeated, integer values from seed.
struct Entries {
  std::vector<PetscInt> rows, cols;
  std::vector<double> values;
};

Entries entriesOf(int r, unsigned value_seed) {
  const int n = matrixSize();
  std::mt19937 gen(1000u + static_cast<unsigned>(r));
  std::uniform_int_distribution<int> index(0, n - 1);
  Entries e;
  for (int k = 0; k < 6 * n; ++k) {
    const PetscInt i = index(gen), j = index(gen);
    e.rows.push_back(i);
    e.cols.push_back(j);
    if (k % 3 == 0) {  // the same position again
      e.rows.push_back(i);
      e.cols.push_back(j);
    }
  }
  std::mt19937 values(value_seed + static_cast<unsigned>(r));
  std::uniform_int_distribution<int> value(-8, 8);
  for (std::size_t k = 0; k < e.rows.size(); ++k) e.values.push_back(value(values));
  return e;
}

/// The dense sum of every rank's entries and its pattern (positions listed by any rank).
Eigen::MatrixXd denseSum(unsigned value_seed, Eigen::MatrixXi* pattern) {
  const int n = matrixSize();
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(n, n);
  if (pattern) *pattern = Eigen::MatrixXi::Zero(n, n);
  for (int r = 0; r < worldSize(); ++r) {
    const Entries e = entriesOf(r, value_seed);
    for (std::size_t k = 0; k < e.rows.size(); ++k) {
      D(e.rows[k], e.cols[k]) += e.values[k];
      if (pattern) (*pattern)(e.rows[k], e.cols[k]) = 1;
    }
  }
  return D;
}

/// Number of owned entries whose pattern or value differs from the dense sum, over the ranks.
double mismatches(Mat A, const Eigen::MatrixXd& D, const Eigen::MatrixXi& pattern) {
  PetscInt r0 = 0, r1 = 0;
  BOOST_REQUIRE(MatGetOwnershipRange(A, &r0, &r1) == 0);
  double bad = 0.0;
  for (PetscInt i = r0; i < r1; ++i) {
    PetscInt m = 0;
    const PetscInt* c = nullptr;
    const PetscScalar* v = nullptr;
    BOOST_REQUIRE(MatGetRow(A, i, &m, &c, &v) == 0);
    std::set<PetscInt> seen;
    for (PetscInt k = 0; k < m; ++k) {
      seen.insert(c[k]);
      if (!pattern(i, c[k]) || v[k] != D(i, c[k])) bad += 1.0;
    }
    BOOST_REQUIRE(MatRestoreRow(A, i, &m, &c, &v) == 0);
    if (static_cast<int>(seen.size()) != pattern.row(i).sum()) bad += 1.0;
  }
  return allSum(bad);
}

/// max |A x - D x| over the ranks, x_i = i - 3 (integers: the products are exact).
double productError(Mat A, const Eigen::MatrixXd& D) {
  Vec x, y;
  BOOST_REQUIRE(MatCreateVecs(A, &x, &y) == 0);
  PetscInt r0 = 0, r1 = 0;
  VecGetOwnershipRange(x, &r0, &r1);
  for (PetscInt i = r0; i < r1; ++i) VecSetValue(x, i, static_cast<double>(i) - 3.0, INSERT_VALUES);
  VecAssemblyBegin(x);
  VecAssemblyEnd(x);
  BOOST_REQUIRE(MatMult(A, x, y) == 0);
  Eigen::VectorXd xd(D.cols());
  for (int i = 0; i < xd.size(); ++i) xd(i) = i - 3.0;
  const Eigen::VectorXd yd = D * xd;
  const PetscScalar* yv = nullptr;
  VecGetArrayRead(y, &yv);
  double error = 0.0;
  for (PetscInt i = r0; i < r1; ++i) error = std::max(error, std::abs(yv[i - r0] - yd(i)));
  VecRestoreArrayRead(y, &yv);
  VecDestroy(&x);
  VecDestroy(&y);
  return allMax(error);
}

}  // namespace

BOOST_AUTO_TEST_CASE(owned_rows_are_the_sums_of_every_ranks_entries) {
  const int rank = worldRank(), rows = ownedRows(rank);
  const Entries e = entriesOf(rank, 1);
  CooMatrix A(rows, rows, e.rows, e.cols);
  BOOST_TEST(A.entries() == static_cast<Index>(e.rows.size()));
  Eigen::MatrixXi pattern;
  for (const unsigned seed : {1u, 2u}) {  // a refill with other values
    const Entries f = entriesOf(rank, seed);
    A.set(f.values.data());
    const Eigen::MatrixXd D = denseSum(seed, &pattern);
    BOOST_TEST(mismatches(A.mat(), D, pattern) == 0.0);
    BOOST_TEST(productError(A.mat(), D) == 0.0);
  }
}

BOOST_AUTO_TEST_CASE(equals_petscs_own_coo_assembly_and_repeats_its_bits) {
  const int rank = worldRank(), rows = ownedRows(rank);
  Entries e = entriesOf(rank, 3);
  std::mt19937 gen(77u + static_cast<unsigned>(rank));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& v : e.values) v = u(gen);  // not exact: sums depend on their order
  CooMatrix A(rows, rows, e.rows, e.cols), B(rows, rows, e.rows, e.cols);
  A.set(e.values.data());
  B.set(e.values.data());
  A.set(e.values.data());  // again: the same bits
  Mat P;
  BOOST_REQUIRE(MatCreate(PETSC_COMM_WORLD, &P) == 0);
  MatSetSizes(P, rows, rows, PETSC_DETERMINE, PETSC_DETERMINE);
  MatSetType(P, MATMPIAIJ);
  std::vector<PetscInt> i = e.rows, j = e.cols;
  BOOST_REQUIRE(MatSetPreallocationCOO(P, static_cast<PetscCount>(i.size()), i.data(), j.data()) ==
                0);
  BOOST_REQUIRE(MatSetValuesCOO(P, e.values.data(), INSERT_VALUES) == 0);
  PetscInt r0 = 0, r1 = 0;
  MatGetOwnershipRange(A.mat(), &r0, &r1);
  double differ = 0.0, worst = 0.0;
  for (PetscInt r = r0; r < r1; ++r) {
    PetscInt na = 0, nb = 0, np = 0;
    const PetscInt *ca = nullptr, *cb = nullptr, *cp = nullptr;
    const PetscScalar *va = nullptr, *vb = nullptr, *vp = nullptr;
    MatGetRow(A.mat(), r, &na, &ca, &va);
    const std::vector<PetscInt> cols_a(ca, ca + na);
    const std::vector<double> vals_a(va, va + na);
    MatRestoreRow(A.mat(), r, &na, &ca, &va);  // sets na to 0
    na = static_cast<PetscInt>(cols_a.size());
    MatGetRow(B.mat(), r, &nb, &cb, &vb);
    if (nb != na) differ += 1.0;
    for (PetscInt k = 0; k < std::min(na, nb); ++k)
      if (cb[k] != cols_a[k] || vb[k] != vals_a[k]) differ += 1.0;
    MatRestoreRow(B.mat(), r, &nb, &cb, &vb);
    MatGetRow(P, r, &np, &cp, &vp);
    if (np != na) differ += 1.0;
    for (PetscInt k = 0; k < std::min(na, np); ++k) {
      if (cp[k] != cols_a[k]) differ += 1.0;
      worst = std::max(worst, std::abs(vp[k] - vals_a[k]));
    }
    MatRestoreRow(P, r, &np, &cp, &vp);
  }
  MatDestroy(&P);
  BOOST_TEST(allSum(differ) == 0.0);
  BOOST_TEST(allMax(worst) <= 1e-14);  // sums of up to ~10 terms of |v| <= 1, in other orders
}

// setFrom reads each entry through an accessor (SaddlePointMatrix: A's, B's and B^T's values
// from their own arrays): the same bits as set() on the values gathered in one array.
BOOST_AUTO_TEST_CASE(set_from_an_accessor_gives_sets_bits) {
  const int rank = worldRank(), rows = ownedRows(rank);
  Entries e = entriesOf(rank, 5);
  std::mt19937 gen(91u + static_cast<unsigned>(rank));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& v : e.values) v = u(gen);
  const std::size_t half = e.values.size() / 2;
  const std::vector<double> low(e.values.begin(), e.values.begin() + half);
  const std::vector<double> high(e.values.begin() + half, e.values.end());
  CooMatrix A(rows, rows, e.rows, e.cols), B(rows, rows, e.rows, e.cols);
  A.set(e.values.data());
  B.setFrom([&](Index k) {
    const auto at = static_cast<std::size_t>(k);
    return at < half ? low[at] : high[at - half];
  });
  PetscInt r0 = 0, r1 = 0;
  MatGetOwnershipRange(A.mat(), &r0, &r1);
  double differ = 0.0;
  for (PetscInt r = r0; r < r1; ++r) {
    PetscInt na = 0, nb = 0;
    const PetscInt *ca = nullptr, *cb = nullptr;
    const PetscScalar *va = nullptr, *vb = nullptr;
    MatGetRow(A.mat(), r, &na, &ca, &va);
    const std::vector<PetscInt> cols_a(ca, ca + na);
    const std::vector<double> vals_a(va, va + na);
    MatRestoreRow(A.mat(), r, &na, &ca, &va);
    MatGetRow(B.mat(), r, &nb, &cb, &vb);
    if (nb != static_cast<PetscInt>(cols_a.size())) differ += 1.0;
    for (PetscInt k = 0; k < std::min<PetscInt>(nb, static_cast<PetscInt>(cols_a.size())); ++k)
      if (cb[k] != cols_a[k] || vb[k] != vals_a[k]) differ += 1.0;
    MatRestoreRow(B.mat(), r, &nb, &cb, &vb);
  }
  BOOST_TEST(allSum(differ) == 0.0);
}

BOOST_AUTO_TEST_CASE(aij_on_one_rank_is_sequential_and_bad_indices_are_refused) {
  const int rank = worldRank(), rows = ownedRows(rank);
  const Entries e = entriesOf(rank, 4);
  CooMatrix A(rows, rows, e.rows, e.cols, MATAIJ);
  A.set(e.values.data());
  MatType type = nullptr;
  MatGetType(A.mat(), &type);
  BOOST_TEST(std::string(type) == (worldSize() == 1 ? MATSEQAIJ : MATMPIAIJ));
  Eigen::MatrixXi pattern;
  BOOST_TEST(mismatches(A.mat(), denseSum(4, &pattern), pattern) == 0.0);
  // Rank 0 gives an entry outside the matrix (a column past its last), the others sound ones:
  // every rank throws, none waits for the others.
  std::vector<PetscInt> r{0}, c{rank == 0 ? static_cast<PetscInt>(matrixSize()) : 0};
  BOOST_CHECK_EXCEPTION(CooMatrix(rows, rows, r, c), Error, [&](const Error& e) {
    const std::string what = e.what();
    return what.find(rank == 0 ? "outside the" : "another rank's") != std::string::npos;
  });
}

BOOST_AUTO_TEST_CASE(petscs_allocation_failure_is_reported_as_out_of_memory) {
  // What every CATENA_PETSC call reports when PETSc's allocator fails (catena-scale turns it
  // into its out-of-memory line and exit status 4): the function that failed and the call.
  double* p = nullptr;
  const auto huge = static_cast<std::size_t>(1) << 60;
  BOOST_CHECK_EXCEPTION(
      CATENA_PETSC(PetscMalloc1(huge, &p)), OutOfMemory, [](const OutOfMemory& e) {
        const std::string what = e.what();
        return what.find("PETSc could not allocate memory (in PetscMalloc") != std::string::npos &&
               what.find("PetscMalloc1(huge, &p)") != std::string::npos;
      });
}

BOOST_AUTO_TEST_CASE(entries_listed_once_over_all_ranks) {
  // No (row, column) pair is listed twice anywhere (the saddle-point matrix's case on one rank):
  // each slot is one entry. Rank r lists the positions with (i + 2 j) mod ranks = r, rows of
  // other ranks among them.
  const int rank = worldRank(), rows = ownedRows(rank), n = matrixSize();
  auto value = [](int i, int j, unsigned seed) {
    return static_cast<double>((i * 3 + j * seed) % 17 - 8);
  };
  Entries e;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if ((i * 7 + j) % 5 == 0 && (i + 2 * j) % worldSize() == rank) {
        e.rows.push_back(i);
        e.cols.push_back(j);
      }
  CooMatrix A(rows, rows, e.rows, e.cols);
  for (const unsigned seed : {1u, 5u}) {
    Eigen::MatrixXd D = Eigen::MatrixXd::Zero(n, n);
    Eigen::MatrixXi pattern = Eigen::MatrixXi::Zero(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if ((i * 7 + j) % 5 == 0) {
          D(i, j) = value(i, j, seed);
          pattern(i, j) = 1;
        }
    std::vector<double> v;
    for (std::size_t k = 0; k < e.rows.size(); ++k)
      v.push_back(value(static_cast<int>(e.rows[k]), static_cast<int>(e.cols[k]), seed));
    A.set(v.data());
    BOOST_TEST(mismatches(A.mat(), D, pattern) == 0.0);
    BOOST_TEST(productError(A.mat(), D) == 0.0);
  }
}
