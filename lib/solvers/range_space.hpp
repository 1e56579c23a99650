#pragma once
/// @file range_space.hpp
/// The KKT system [A B^T; B 0] [x; y] = [f; g] of a block-diagonal positive definite A (one
/// block per body: the mass matrix) by its range-space form: y from the Schur complement
///   S y = B A^-1 f - g,   S = B A^-1 B^T   (sparse LDL^T, Eigen's SimplicialLDLT, AMD order),
/// then x = A^-1 (f - B^T y), refined on the KKT residual until its backward error is at
/// round-off (one step at least: S squares B's condition). Where it applies it is about twice
/// as fast as KLU on the KKT matrix (docs/dynamics-rk.md). One process.
///
/// Failure is a status, never a wrong answer: factor() fails (kSingular) when a block of A is
/// not positive definite or a pivot of S falls below kRangeSpacePivot of its diagonal (a row
/// nearly dependent on the others, where S's squared condition would cost digits); solve()
/// fails (kNotConverged) when refinement does not bring the backward error to
/// kRangeSpaceBackwardError. Callers then use the KKT matrix itself (SaddlePointSolver).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "core/types.hpp"
#include "solvers/kkt_solver.hpp"

namespace catena {

/// A pivot of S below this fraction of its diagonal entry (the squared sine of the angle between
/// the row and the span of the rows before it, in the A^-1 metric) fails factor().
inline constexpr double kRangeSpacePivot = 1e-10;
/// Where S's factorization would cost more than KLU on the KKT matrix, the range-space form
/// does not apply (applicable() false): S's row pairs (sum over bodies of r (r + 1) / 2, r the
/// rows touching the body) above kRangeSpaceMaxPairs per unknown of the KKT matrix, or the
/// LDL^T's work (sum over L's columns of their count squared) above kRangeSpaceMaxWork per
/// unknown. Measured (RK, hand runs, set-up included; work per unknown): a 1000-link chain 13
/// (1.6x faster than KLU over 0.1 s), a 30 x 30 four-bar lattice 450 (7x faster), the same
/// lattice with merged couplers 3500 (1.4x slower over 0.05 s), 100 x 100 merged 38000 (3.3x
/// slower over 0.02 s).
inline constexpr double kRangeSpaceMaxPairs = 50.0;
inline constexpr double kRangeSpaceMaxWork = 1000.0;
/// The largest accepted componentwise backward error of a solve's KKT residual,
/// max_i |r_i| / (|A| |x| + |B^T| |y| + |f|)_i and likewise for the rows of B.
inline constexpr double kRangeSpaceBackwardError = 1e-14;

class RangeSpaceKkt {
 public:
  /// A_pattern: n x n, B_pattern: m x n, block: the size of A's diagonal blocks (n a multiple).
  /// A_nonzero: as SaddlePointSolver's (empty: every entry of A_pattern may be nonzero).
  /// applicable() is false when an entry outside the diagonal blocks may be nonzero, the
  /// blocks are not 3 x 3 or 6 x 6 (a planar or spatial body's velocities), or S's
  /// factorization would be costly (kRangeSpaceMaxPairs, kRangeSpaceMaxWork).
  RangeSpaceKkt(const SparseMatrixCSR& A_pattern, const SparseMatrixCSR& B_pattern, int block,
                const std::vector<std::uint8_t>& A_nonzero = {});
  ~RangeSpaceKkt();
  RangeSpaceKkt(const RangeSpaceKkt&) = delete;
  RangeSpaceKkt& operator=(const RangeSpaceKkt&) = delete;

  /// False from construction (see there), or after factor() met a mass block that is not
  /// positive definite (a point mass, a massless body): it is not at any configuration.
  bool applicable() const { return applicable_; }
  /// Takes the values of A and B (the construction's patterns) and factors. See the file comment
  /// for failures.
  Status factor(const SparseMatrixCSR& A, const SparseMatrixCSR& B);
  /// x (n) and y (m) with the last successful factor(). See the file comment for failures.
  Status solve(const VecX& f, const VecX& g, VecX& x, VecX& y);
  /// Counts and times since construction (wall s).
  SaddlePointStats stats() const { return stats_; }
  /// Refinement steps of all solves since construction.
  long refinements() const { return refinements_; }

 private:
  struct Work;
  /// applicable() false from now on, every array freed.
  void release();
  // Per-block work for blocks of BS (3: planar bodies, 6: spatial ones).
  template <int BS>
  Status factorBlocks();
  template <int BS>
  void applyInverseA(const double* in, double* out) const;
  template <int BS>
  void solveOnce(const double* f, const double* g, double* x, double* y);
  template <int BS>
  double residual(const double* f, const double* g, const double* x, const double* y, double* r1,
                  double* r2, bool judge) const;
  template <int BS>
  double solveRefined(const VecX& f, const VecX& g, VecX& x, VecX& y);

  bool applicable_ = true;
  int n_ = 0, m_ = 0, block_ = 0, blocks_ = 0;
  // Rows of B that touch block b: rows_[rows_start_[b] .. rows_start_[b + 1]), ascending.
  std::vector<int> rows_start_, rows_;
  // Per entry k of B (CSR order): its place in the dense copy of its block's rows, b_dense_
  // (row-major).
  std::vector<int> b_slot_;
  // Per block: start of its dense B_b (rows x block, row-major) in b_dense_, and of its
  // upper-triangle pairs (i <= j of its rows) in pair_slot_, the value index in S of each pair.
  std::vector<long> dense_start_, pair_start_;
  std::vector<int> pair_slot_;
  // Per entry of A's pattern: its place in a_dense_ (block b at b * block^2), -1: outside.
  std::vector<int> a_slot_;
  std::vector<int> perm_;           // S's row of constraint row r (AMD)
  std::vector<int> diag_slot_;      // value index of S's diagonal entry in each column
  std::vector<double> a_dense_;     // blocks of A (column-major)
  std::vector<double> a_inv_;       // their inverses (column-major)
  std::vector<double> a_factored_;  // the blocks a_inv_ inverts
  bool inverted_ = false;           // a_inv_ holds the inverses of a_factored_
  std::vector<double> b_dense_;     // B_b per block
  std::unique_ptr<Work> work_;
  SaddlePointStats stats_;
  long refinements_ = 0;
};

}  // namespace catena
