#define BOOST_TEST_MODULE gathered_klu
// solvers/gathered_klu.hpp on 1, 2 and 4 ranks: a saddle-point system numbered body by body (a
// body's 3 coordinates, then the 2 rows of the joint it holds to the next body), rows split
// over the ranks in contiguous ranges of bodies as the distributed dynamics splits them, solved
// against Eigen's dense LU of the same matrix; entries given twice are summed; new values are
// refactored; a singular matrix fails on every rank alike. (Bit for bit across rank counts:
// mpi_catena_scale_reproducible, which runs the dynamics through it.)
#include <boost/test/unit_test.hpp>

#include <mpi.h>

#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "model/model_part.hpp"
#include "mpi_support.hpp"
#include "petsc_fixture.hpp"
#include "solvers/gathered_klu.hpp"

using namespace catena;
using namespace catena::test;

namespace {

constexpr int kBodies = 13, kCoordinates = 3, kRows = 2;

/// First unknown of body b: its coordinates, then its joint's rows (none for the last body).
int firstOf(int b) {
  return b * (kCoordinates + kRows);
}
int sizeOf(int b) {
  return kCoordinates + (b + 1 < kBodies ? kRows : 0);
}
int unknowns() {
  return firstOf(kBodies - 1) + kCoordinates;
}

/// The whole matrix, the same on every rank: A symmetric positive definite (a body's own block
/// and couplings to the next body), B the joints' rows on both bodies' coordinates.
Eigen::MatrixXd wholeMatrix(unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int n = unknowns();
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n);
  for (int b = 0; b < kBodies; ++b) {
    const int c = firstOf(b);
    Eigen::Matrix3d R;
    for (int i = 0; i < 9; ++i) R(i) = u(gen);
    K.block<3, 3>(c, c) = R * R.transpose() + 4.0 * Eigen::Matrix3d::Identity();
    if (b + 1 == kBodies) continue;
    const int d = firstOf(b + 1);
    for (int i = 0; i < 3; ++i) K(c + i, d + i) = K(d + i, c + i) = 0.5 * u(gen);
    for (int r = 0; r < kRows; ++r) {
      const int row = c + kCoordinates + r;
      for (int i = 0; i < 3; ++i) {
        K(row, c + i) = K(c + i, row) = u(gen);
        K(row, d + i) = K(d + i, row) = u(gen);
      }
    }
  }
  return K;
}

/// This rank's rows (bodies in a contiguous range) as COO entries, the diagonal given twice
/// (halves), and its groups: the body of a coordinate, -1 for a row.
struct Part {
  int first = 0, rows = 0;
  std::vector<int> r, c, groups;
  std::vector<double> values;
};

Part part(const Eigen::MatrixXd& K) {
  const auto [b0, b1] = contiguousRange(kBodies, worldRank(), worldSize());
  Part p;
  p.first = firstOf(static_cast<int>(b0));
  for (Index b = b0; b < b1; ++b) {
    p.rows += sizeOf(static_cast<int>(b));
    for (int k = 0; k < sizeOf(static_cast<int>(b)); ++k)
      p.groups.push_back(k < kCoordinates ? static_cast<int>(b) : -1);
  }
  for (int i = p.first; i < p.first + p.rows; ++i)
    for (int j = 0; j < K.cols(); ++j) {
      if (K(i, j) == 0.0) continue;
      const int copies = i == j ? 2 : 1;
      for (int k = 0; k < copies; ++k) {
        p.r.push_back(i);
        p.c.push_back(j);
        p.values.push_back(K(i, j) / copies);
      }
    }
  return p;
}

/// max |x - K^-1 b| / max |K^-1 b| over this rank's rows, reduced over the ranks.
double solveError(GatheredKlu& lu, const Eigen::MatrixXd& K, const Part& p) {
  Eigen::VectorXd b(K.rows());
  for (int i = 0; i < b.size(); ++i) b(i) = std::sin(1.0 + i);
  const Eigen::VectorXd exact = K.partialPivLu().solve(b);
  std::vector<double> x(p.rows);
  BOOST_REQUIRE(lu.solve(b.data() + p.first, x.data()).ok());
  double error = 0.0;
  for (int i = 0; i < p.rows; ++i) error = std::max(error, std::abs(x[i] - exact(p.first + i)));
  return allMax(error) / exact.cwiseAbs().maxCoeff();
}

}  // namespace

BOOST_AUTO_TEST_CASE(solves_and_refactors_the_gathered_system) {
  const Eigen::MatrixXd K = wholeMatrix(7);
  const Part p = part(K);
  GatheredKlu lu(p.rows, p.r, p.c, p.groups);
  BOOST_REQUIRE(lu.factor(p.values.data()).ok());
  const double first = solveError(lu, K, p);
  BOOST_TEST_MESSAGE(worldSize() << " ranks: solution within " << first << " of Eigen's");
  BOOST_TEST(first < 1e-12);

  // New values in the same pattern (a refactorization keeps the pivots while they hold).
  Eigen::MatrixXd K2 = K;
  for (int i = 0; i < K2.rows(); ++i)
    for (int j = 0; j < K2.cols(); ++j)
      if (K2(i, j) != 0.0) K2(i, j) *= 1.0 + 0.01 * std::cos(3.0 * i + j);
  const Part p2 = part(K2);
  BOOST_REQUIRE(lu.factor(p2.values.data()).ok());
  BOOST_TEST(solveError(lu, K2, p2) < 1e-12);
  lu.forgetPivots();
  BOOST_REQUIRE(lu.factor(p2.values.data()).ok());
  BOOST_TEST(solveError(lu, K2, p2) < 1e-12);
}

BOOST_AUTO_TEST_CASE(a_singular_matrix_fails_on_every_rank) {
  // The first joint's first row (and column) zero in the complete pattern: the analysis
  // succeeds, the factorization finds the zero pivot.
  const Eigen::MatrixXd K = wholeMatrix(7);
  Part p = part(K);
  for (std::size_t k = 0; k < p.values.size(); ++k)
    if (p.r[k] == kCoordinates || p.c[k] == kCoordinates) p.values[k] = 0.0;
  GatheredKlu lu(p.rows, p.r, p.c, p.groups);
  const Status st = lu.factor(p.values.data());
  const double failed = allMax(st.ok() ? 0.0 : 1.0), agreed = allSum(st.ok() ? 0.0 : 1.0);
  BOOST_TEST(failed == 1.0);
  BOOST_TEST(agreed == static_cast<double>(worldSize()));
}
