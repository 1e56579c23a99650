#pragma once
/// @file klu_lu.hpp
/// SuiteSparse KLU called directly on a fixed CSR pattern (solvers/ only), for the one thing
/// PETSc's KLU interface does not do: a refactorization that keeps the previous pivot order
/// (klu_refactor). On the 1000-link chain's KKT matrix (n = 10^4, 1.7e5 nonzeros) a new
/// factorization takes 4.3 ms and a refactorization 1.1 ms (hand run); generalized-alpha factors
/// about once per step there. The pivots of a refactorization are not chosen again, so after each
/// one the crude reciprocal condition estimate (min |U_kk| / max |U_kk|, klu_rcond) is compared
/// with that of the last full factorization (as SUNDIALS' KLU module does): a drop by more than
/// kMaxRcondDrop means the old pivots have gone bad, and the matrix is factored again with
/// partial pivoting (a pendulum's 11 x 11 KKT matrix needs that every few steps as it swings).
/// The estimate is crude, so a caller whose iteration fails calls forgetPivots() before it
/// factors again. (klu_rgrowth, the pivot growth, would be a sharper test; it costs a third of
/// a refactorization.)
///
/// KLU reads compressed columns; the CSR arrays of A are the CSC arrays of A^T, so A^T is
/// factored and A x = b solved with klu_tsolve (as PETSc's interface does).

#include <memory>
#include <vector>

#include "core/status.hpp"

namespace catena {

/// The index of each of n positions once `dropped` (distinct, in [0, n)) are removed and the
/// others keep their order; -1 for a dropped one. catena::Error for a position out of range or
/// given twice.
std::vector<int> positionsAfterDrop(int n, const std::vector<int>& dropped);

class KluLu {
 public:
  /// n x n pattern in CSR: row_start (n + 1) and columns (row_start[n]), sorted per row. The
  /// arrays are copied. Runs the symbolic analysis (AMD ordering, block triangular form).
  /// Throws catena::Error if KLU cannot analyse the pattern.
  KluLu(int n, const int* row_start, const int* columns);
  /// The same, taking the arrays over instead of copying them: a caller that builds the pattern
  /// for KLU alone (the saddle-point solver) keeps no second copy of it. coordinates > 0 says
  /// the matrix is [A B^T; B 0] with A coordinates x coordinates: its pivot order then comes
  /// from solvers/kkt_ordering.hpp (KLU's own search of a zero-free diagonal is slow on the
  /// empty block), falling back to KLU's analysis where that order does not exist. groups (one
  /// per coordinate, see saddlePointPivotOrder): that order with the coordinates grouped, tried
  /// first.
  KluLu(int n, std::vector<int> row_start, std::vector<int> columns, int coordinates = 0,
        const std::vector<int>& groups = {});
  /// The same with a given row order P and column order Q (the k-th pivot starts at entry
  /// (P[k], Q[k]) of F = A^T, before pivoting) and no block triangular form, so that the
  /// factors' columns follow Q (solvers/interior_block.hpp reads their trailing columns).
  KluLu(int n, std::vector<int> row_start, std::vector<int> columns, const std::vector<int>& P,
        const std::vector<int>& Q);
  ~KluLu();
  KluLu(const KluLu&) = delete;
  KluLu& operator=(const KluLu&) = delete;

  /// Factors the matrix with these values (in the pattern's order): a refactorization with the
  /// last pivot order when there is one and it stays well conditioned, else a new
  /// factorization with partial pivoting. A singular matrix returns kSingular naming the zero
  /// pivot's column, exhausted memory kResources.
  Status factor(const double* values);
  /// The same with the values already written into values() (no copy).
  Status factor();
  /// KLU's value array (row_start[n] entries, the pattern's order), for a caller that scatters
  /// its values straight into it and then calls factor(): one value array instead of two.
  double* values();
  /// A pivot below `ratio` of its column's largest entry makes factor() fail as singular
  /// (default kSingularPivot).
  void setSingularPivot(double ratio) { singular_pivot_ = ratio; }
  /// Every later factor() scales each column of A (each row of F = A^T) by its largest entry
  /// (KLU's scale = 2), for a matrix whose unknowns have unrelated units that no caller scaled
  /// (IDA's Newton matrix: index 3 at rtol 1e-11 kept a pendulum's period to 3e-7 with it and
  /// 1.3e-6 without, a hand run). Default: no scaling.
  void scaleByLargestEntries();
  /// The next factor() chooses new pivots (after a failed iteration that used this one).
  void forgetPivots() { new_pivots_ = true; }
  /// A refactorization whose crude condition estimate dropped by more than kMaxRcondDrop is
  /// kept if its pivot growth, the largest over the columns of max |U_j| / max |A_j| (1 /
  /// klu_rgrowth), stays within max_growth: for a caller that checks the backward error of every
  /// solve and calls forgetPivots() when refinement cannot reach it. 0 (default): refused, as
  /// SUNDIALS does.
  void acceptRefactorizationGrowth(double max_growth) { max_refactor_growth_ = max_growth; }
  /// Whether the last successful factor() kept the previous pivots.
  bool lastRefactored() const { return last_refactored_; }
  /// Overwrites b (n entries) with A^-1 b, using the last successful factor().
  Status solve(double* b);

  /// The last successful factorization P F Q = L U of F = A^T (no scaling; one block for the
  /// order-given constructor, which these accessors require), read in place. Positions are pivot
  /// indices 0..n-1: rowPivots()[k] is the row of F pivoted at k (A's column), columnOrder()[k]
  /// the column of F (A's row); lowerColumn(k): L(i, k) for i > k (the unit diagonal left out),
  /// upperColumn(k): U(i, k) for i < k, upperDiagonal(k): U(k, k).
  struct FactorColumn {
    const int* rows = nullptr;
    const double* values = nullptr;
    int size = 0;
  };
  FactorColumn lowerColumn(int k) const;
  FactorColumn upperColumn(int k) const;
  double upperDiagonal(int k) const;
  const int* rowPivots() const;
  const int* columnOrder() const;
  /// The order-given constructor's row order (its P: the row of F each pivot started from,
  /// before pivoting), as KLU keeps it.
  const int* givenRowOrder() const;
  /// The two halves of solve() for the order-given constructor, A x = b with A = F^T =
  /// Q U^T L^T P: upperTransposedSolve sets y = U^-T Q^T b (n entries, pivot positions),
  /// lowerTransposedSolve overwrites y with L^-T y and sets x = P^T y. A caller may change y in
  /// between (the Schur decomposition's interface terms live on its trailing pivots).
  void upperTransposedSolve(const double* b, double* y) const;
  void lowerTransposedSolve(double* y, double* x) const;

  /// The pattern it factors (row_start, columns as given, or as left by dropPositions).
  const int* patternRowStart() const;
  const int* patternColumns() const;
  /// For the order-given constructor with the identity column order (a matrix numbered in its
  /// pivot order, solvers/interior_block.hpp): removes the rows and columns at these positions
  /// (ascending) from the pattern and the row order, renumbers the others down in the same
  /// order and analyses again, in place of the arrays. The same analysis as constructing anew
  /// from the reduced pattern and orders, without a second copy of the pattern. The values
  /// shrink with the pattern; the next factor() chooses new pivots. Returns, per entry of the
  /// pattern before the drop, whether it was kept (arrays that follow the pattern's entries
  /// compact alike).
  std::vector<char> dropPositions(const std::vector<int>& positions);

  /// After a factor() of the order-given constructor that failed as singular: every column of
  /// F (A's row) whose pivot fell below kSingularPivot of its column, in pivot order (KLU runs to
  /// the end there instead of stopping at the first). Empty otherwise.
  const std::vector<int>& singularColumns() const { return singular_columns_; }

  /// Whether the analysis took the saddle-point order of solvers/kkt_ordering.hpp.
  bool saddlePointOrder() const { return saddle_point_order_; }
  /// nnz(L) + nnz(U) of the last successful factorization (0 before one).
  long factorNonZeros() const;
  int fullFactorizations() const { return full_; }
  int refactorizations() const { return refactor_; }

 private:
  struct Klu;  // SuiteSparse types stay out of this header
  std::unique_ptr<Klu> klu_;
  int n_ = 0;
  int full_ = 0, refactor_ = 0;
  bool new_pivots_ = false;
  bool last_refactored_ = false;
  double max_refactor_growth_ = 0.0;
  bool saddle_point_order_ = false;
  std::vector<int> singular_columns_;
  double singular_pivot_ = 0.0;  // set by the constructors to kSingularPivot
};

/// Threshold partial pivoting: a diagonal pivot is kept while it is at least this fraction of
/// the largest in its column. KLU's default 0.001 suits circuit matrices; on the KKT matrices of
/// a chain with its always-zero entries left out (AssemblyPlan::body_nonzero) it let the solutions
/// lose two digits to pivot growth (solvers/saddle_point_test); 0.1 keeps them, at 14 % more
/// flops there (2.33 against 2.04 Mflop) and a refactorization time within the noise (hand runs).
inline constexpr double kPivotTolerance = 0.1;

/// Cap on the work of the maximum transversal in KLU's block triangular form (klu_common::
/// maxwork), in units of nnz(A); past it KLU factors without a complete transversal, which only
/// costs the block structure (Davis, KLU user guide). Uncapped, the transversal of a 10^4-link
/// chain's GGL Newton matrix cost 81 s (integrators/serial_ida_system.cpp).
inline constexpr double kMaxTransversalWork = 10.0;

/// A factorization with a pivot below this fraction of the largest entry of its column (in the
/// matrix factored) is numerically singular (kSingular). KLU itself stops only at an exact zero,
/// which depends on the order of the sums; a redundant constraint row leaves a pivot at
/// round-off instead (1e-31 to 1e-48 of its column on the modified double four-bar), a regular
/// matrix pivots at 5e-8 of its column or more (a 100 x 100 merged four-bar lattice, 61100
/// unknowns; 2e-5 at 10^5 chain links): docs/dynamics-redundant.md.
inline constexpr double kSingularPivot = 1e-13;

/// KLU's first reservation for L and for U under a given order (it has no fill estimate then):
/// this many times nnz(A) each, grown by reallocation when a factorization needs more. KLU's
/// default, 10, reserved 20 nnz(A) entries of address space where the 3D chain's blocks use
/// nnz(L) + nnz(U) = 1.3 - 1.5 nnz(A) (one interface) and 2.0 - 2.2 nnz(A) (two): a 10^6-link
/// chain on 2 ranks asked for 13 GB per block and got none (hand runs, 2026-11-28).
inline constexpr double kGivenOrderReserve = 2.0;

/// A refactorization whose rcond falls below the last full factorization's divided by this is
/// redone with new pivots.
inline constexpr double kMaxRcondDrop = 1e3;

}  // namespace catena
