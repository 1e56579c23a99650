#pragma once
/// @file eigen_solver.hpp
/// Generalized eigenproblem A x = theta B x with SLEPc: Krylov-Schur, shift-and-invert about a
/// real target (a pivoting LU, solvers/factorization.hpp, so A - sigma B may have a zero
/// diagonal block), the eigenvalues nearest the target. Deterministic: a fixed start vector, and
/// every eigenvector is normalized (unit 2-norm, largest entry real and positive). SLEPc options
/// apply under the prefix (e.g. -modal_eps_type, -modal_st_type, -modal_eps_tol).

#include <complex>
#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "core/status.hpp"

namespace catena {

struct EigenOptions {
  int count = 4;             ///< eigenpairs wanted
  double target = 0.0;       ///< real shift sigma
  double tolerance = 1e-10;  ///< SLEPc relative tolerance
  std::string prefix = "modal_";
};

struct EigenPair {
  std::complex<double> value;  ///< theta
  VecX re, im;                 ///< eigenvector (im is zero for a real eigenvalue)
  double residual = 0.0;       ///< |A x - theta B x| / (|theta| |x|), SLEPc's relative error
};

struct EigenResult {
  Status status;
  std::vector<EigenPair> pairs;  ///< sorted by distance to the target, then by imaginary part
  int iterations = 0;
  std::string method;  ///< e.g. "krylovschur + sinvert (klu)"
  /// Wall seconds of the set-up (copy into PETSc, factorization of A - sigma B, analysis
  /// included) and of the iterations (solves with that factorization, orthogonalization).
  double setup_seconds = 0.0, solve_seconds = 0.0;
  int solves = 0;  ///< applications of (A - sigma B)^-1 B
};

/// A and B are square with one pattern each (they need not share it).
EigenResult solveGeneralizedEigen(const SparseMatrixCSR& A, const SparseMatrixCSR& B,
                                  const EigenOptions& options);

}  // namespace catena
