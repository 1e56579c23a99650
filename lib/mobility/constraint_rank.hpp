#pragma once
/// @file constraint_rank.hpp
/// Rank, redundant constraints and the tangent basis of a constraint Jacobian A = C_q (m x n, n
/// velocity coordinates) by QR with column pivoting of A^T (QRCP paper, section 2.5):
///   A^T P = Q R = [Q1ns Q1s Q2] [R1ns R1s; 0 ...],
/// the rank r being the number of diagonal entries |R_ii| above `tolerance` times the largest.
/// The columns of A^T that the pivoting left behind (those beyond r in P) are rows of A that
/// depend on the others: the redundant constraints. T = [Q1s Q2] (the last n - r columns of Q)
/// is an orthonormal basis of the motions the constraints admit, A T = 0 (paper eqs. 25, 28);
/// the first r columns span the constrained directions. Cases m < n, m = n and m > n alike.
///
/// Dense (Eigen's Householder QRCP): for the papers' mechanisms and any model with n up to a few
/// thousand; large models get their rank from SuiteSparseQR or block by block
/// (mobility/blockwise_rank.hpp).

#include <string>
#include <vector>

#include "assembly/plan.hpp"

namespace catena {

/// Default relative threshold on |R_ii| / max |R_ii|: far above round-off (1e-16 .. 1e-14 at
/// an exactly singular configuration), far below the pivots of a regular mechanism.
inline constexpr double kDefaultRankTolerance = 1e-10;

struct ConstraintRank {
  Index n = 0;                               ///< velocity coordinates (columns of A)
  Index m = 0;                               ///< constraint rows
  Index rank = 0;                            ///< numerical rank of A
  double tolerance = kDefaultRankTolerance;  ///< on |R_ii| / largest_pivot
  double largest_pivot = 0.0;                ///< max |R_ii| (absolute; 0 if A = 0)
  /// |R_ii| / largest_pivot, i < min(n, m), in pivot order (non-increasing).
  VecX pivots;
  /// The row of A behind each column of R, in pivot order (all m rows): the first `rank` are
  /// independent, the rest redundant.
  std::vector<Index> pivot_rows;
  MatX normal;   ///< n x rank, orthonormal basis of the range of A^T (Q1ns)
  MatX tangent;  ///< n x (n - rank), orthonormal, A T = 0 (T = [Q1s Q2])

  Index dof() const { return n - rank; }
  /// The redundant rows of A (pivot order).
  std::vector<Index> redundantRows() const;
  /// min |R_ii| / largest over the retained pivots (1 if rank = 0 ... nothing retained: 0).
  double smallestRetained() const;
  /// max |R_ii| / largest over the dropped diagonal entries (0 if none).
  double largestDropped() const;
};

/// QRCP of A^T (A: m x n, dense). Cost O(m n min(m, n)) plus O(n^2 (n - rank)) for T.
ConstraintRank analyzeConstraintRank(const MatX& A, double tolerance = kDefaultRankTolerance);

/// The same for the model's constraint Jacobian at (q, t).
ConstraintRank analyzeConstraintRank(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                     double t, double tolerance = kDefaultRankTolerance);

/// Why the saddle-point matrix [M C_q^T; C_q 0] of the dynamics could not be factored at (q, t),
/// as a sentence for the user: redundant constraints (the rank of C_q, the first redundant rows
/// by name, and what to do), or, if C_q has full rank, a motion without mass. Dense QRCP up to
/// kMaxDiagnosedCoordinates velocity coordinates; above, both causes are named without the rank.
std::string diagnoseSingularSaddlePoint(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                        double t);
inline constexpr Index kMaxDiagnosedCoordinates = 3000;

/// How to leave the constraint rows `rows` out of the model, joint by joint, as instructions in
/// the input format (docs/input-format.md): "replace joint 'J' (revolute) by a `lock` with
/// `mask: [1, 0, 0]`, which leaves out its redundant row y" (the mask lists every row of the
/// lock, x y z Rx Ry Rz or x y theta, 1 for those kept), "give joint 'J' (lock) `mask: [...]`"
/// for a lock, or "remove joint 'J'" when none of its rows is kept. Leaving out all the
/// redundant rows of a QRCP (ConstraintRank::redundantRows) leaves independent rows.
std::vector<std::string> redundantRowEdits(const Model& model, const std::vector<Index>& rows);

}  // namespace catena
