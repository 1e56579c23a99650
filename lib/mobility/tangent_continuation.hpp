#pragma once
/// @file tangent_continuation.hpp
/// Continuation of the tangent basis T of a constraint Jacobian A = C_q (m x n, n velocity
/// coordinates) along a path A(t): the projection-continuation paper (papers/
/// projection-continuation-mcs.md, eqs. 22-29) and its QRCP extension (papers/
/// qrcp-redundant-constraints-continuation.md, eqs. 14-22, redundant rows sec. 2.5).
///
/// With the QR factorization with column pivoting A^T P = Q R = [Q1 T] [R1 R12; 0 0] of rank r
/// (Q1 = Q1ns: n x r, T = [Q1s Q2]: n x f, f = n - r), the rates of Q along the path are
/// Q' = Q Omega with the skew-symmetric
///   Omega = [Omega1, -Omega21^T; Omega21, 0]                                  (paper 1 eq. 26)
///   Omega1 = stril(X) - stril(X)^T,  X = Q1^T A_p'^T R1^{-1}                  (eqs. 24-25 / 18-19)
///   Omega21 = T^T A_p'^T R1^{-1}                                              (eq. 20)
///   R1' = Q1^T A_p'^T - Omega1 R1                                             (eq. 21)
/// where A_p are the r independent (pivot) rows of A; redundant rows need nothing more (derived
/// in docs/dynamics-mcs.md, "Continuation of T"). Omega2 = T^T T' is set to zero:
/// T' = -Q1 Omega21^T = -A_p^+ A_p' T (eq. 27).
///
/// A step of length h: Q_{k+1} = Q_k E(Omega h) (eq. 28 / 22), E the exponential map or the
/// Cayley transform, then the orthogonal-Procrustes (polar) step against the new factorization:
/// T_{k+1} = Z (Z^T Z)^{-1/2}, Z = (I - Q1_{k+1} Q1_{k+1}^T) T_evolved (continueTangent). Dense
/// Eigen throughout (the papers' mechanisms are small): O(n^3) per step.

#include <vector>

#include "core/status.hpp"
#include "core/types.hpp"
#include "mobility/constraint_rank.hpp"

namespace catena {

/// How Q is advanced over a step with Omega held constant (paper 1 eq. 28).
enum class ContinuationMap {
  kExponential,  ///< E = exp(Omega h) (Pade, scaling and squaring): orthogonal to round-off
  kCayley,       ///< E = (I - Omega h/2)^{-1} (I + Omega h/2): orthogonal, second order in h
  /// E = I: no Omega at all, T_evolved = T_k and the Procrustes step alone (for comparison: it
  /// too turns T only as its subspace turns, with the same second-order gauge error; see
  /// docs/dynamics-mcs.md).
  kProjection,
};

/// "exponential", "cayley" or "projection".
const char* continuationMapName(ContinuationMap map);

/// The factors of one QRCP of A^T that the continuation needs, signs fixed so that
/// diag(R1) > 0 (paper 1, footnote 1): then Q1 and R1 are unique and smooth along a path of
/// constant rank and fixed pivots.
struct TangentFactors {
  Index n = 0;     ///< velocity coordinates (columns of A)
  Index m = 0;     ///< constraint rows
  Index rank = 0;  ///< r: columns of Q1 (the numerical rank, or a forced one)
  MatX Q1;         ///< n x r, orthonormal, range of A^T (Q1ns)
  MatX R1;         ///< r x r upper triangular, diag > 0: A_p^T = Q1 R1
  MatX T;          ///< n x (n - r): the factorization's own tangent basis [Q1s Q2], A T = 0
  std::vector<Index> pivot_rows;             ///< all m rows in pivot order; the first r are A_p
  VecX r1_diagonal;                          ///< |R_ii|, i < min(n, m), pivot order (absolute)
  VecX pivots;                               ///< |R_ii| / max |R_ii| (as ConstraintRank::pivots)
  double tolerance = kDefaultRankTolerance;  ///< relative rank threshold used
};

/// QRCP of A^T (analyzeConstraintRank) with R1 = Q1^T A_p^T and the signs fixed.
/// @param A          m x n constraint Jacobian (dense)
/// @param tolerance  relative threshold on |R_ii| / max |R_ii| for the rank
/// @param forced_rank  -1: the numerical rank; otherwise r columns of Q in Q1 whatever the
///                   pivots (a chart kept through a step end that lands on a singular
///                   configuration); must be <= min(n, m)
/// Cost O(m n min(m, n) + n^2 (n - r)).
TangentFactors factorTangent(const MatX& A, double tolerance = kDefaultRankTolerance,
                             Index forced_rank = -1);

/// Rates of the factorization along A(t) (paper 1 eqs. 24-27, paper 2 eqs. 18-21).
struct QrRates {
  MatX omega1;   ///< r x r skew: Q1^T Q1'
  MatX omega21;  ///< f x r: T^T Q1' (T the basis passed in)
  MatX dR1;      ///< r x r upper triangular: R1'
};

/// Omega1, Omega21, R1' from the factors at t and dA = A'(t).
/// @param f   factors of A(t)
/// @param T   n x f orthonormal tangent basis at t (the factorization's own, or a continued one)
/// @param dA  m x n, dA/dt (analytic or a difference quotient); only the pivot rows are read
/// Cost O(n r^2 + n r f).
QrRates computeQrRates(const TangentFactors& f, const MatX& T, const MatX& dA);

/// Omega = [Omega1, -Omega21^T; Omega21, 0] (n x n, skew), in the basis [Q1 T] (eq. 26).
MatX assembleOmega(const QrRates& rates);

/// E(Omega h): the exponential map or the Cayley transform of the skew matrix Omega h (n x n,
/// orthogonal). Cost O(n^3).
MatX rotationFactor(const MatX& omega, double h, ContinuationMap map);

/// T evolved over a step: the last n - r columns of [Q1 T] E(Omega h), Omega from
/// computeQrRates(f, T, dA) (eq. 28). dA: m x n, e.g. (A_{k+1} - A_k) / h. kProjection: T.
MatX evolveTangent(const TangentFactors& f, const MatX& T, const MatX& dA, double h,
                   ContinuationMap map);

/// The new basis after the Procrustes step.
struct ContinuedTangent {
  Status status;  ///< not ok if the evolved basis has a direction normal to the new tangent space
  /// n x f_new, orthonormal, A_new T = 0: first `continued` columns continue T_evolved (the
  /// closest orthonormal basis, in the Frobenius norm, of their projection), the rest are the
  /// new admissible motions, orthogonal to them.
  MatX T;
  Index continued = 0;
  /// Principal cosines between span(T_evolved) (its first f_new columns if the new space is
  /// smaller) and the new tangent space, descending: 1 = fully continued.
  VecX cosines;
};

/// Procrustes re-orthogonalization against the new factorization (DESIGN.md): with
/// Z = (I - Q1 Q1^T) T_evolved,
///   f_new = f:  T = Z (Z^T Z)^{-1/2};
///   f_new > f:  continued = Z (Z^T Z)^{-1/2}, new motions = an orthonormal basis of the part of
///               span(B) orthogonal to it (a singular configuration: rank dropped by f_new - f);
///   f_new < f:  the same on the first f_new columns of T_evolved (the motions that survive when
///               a singular configuration is left).
/// @param Q1          n x r_new, orthonormal, range of A_new^T
/// @param B           n x f_new, orthonormal, A_new B = 0 ([Q1 B] complete)
/// @param T_evolved   n x f, orthonormal
/// @param min_cosine  smallest principal cosine accepted (Z^T Z invertible with margin)
/// Cost O(n r f + n f_new^2 + f^3).
ContinuedTangent continueTangent(const MatX& Q1, const MatX& B, const MatX& T_evolved,
                                 double min_cosine = 1e-6);

/// Columns j < min(cols) with T_a(:, j) . T_b(:, j) < 0: the sign flips between two bases.
long countSignFlips(const MatX& Ta, const MatX& Tb);

}  // namespace catena
