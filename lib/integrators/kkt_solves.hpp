#pragma once
/// @file kkt_solves.hpp
/// The KKT solves of the index-1 integrators (IDA index 1, explicit Runge-Kutta) and of IDA's
/// start, on one process: consistent accelerations and multipliers
///   [M C_q^T; C_q 0] [v'; lambda] = [f; gamma],
/// and the mass-weighted projection of q and v onto C = 0 and C_q v + C_t = 0. One
/// factorization (SaddlePointSolver, KLU by default) per configuration. Internal to
/// lib/integrators. model and plan must outlive the object; PETSc must be initialized.

#include <string>
#include <utility>

#include "assembly/plan.hpp"
#include "core/status.hpp"
#include "model/state.hpp"
#include "solvers/saddle_point.hpp"

namespace catena {

class KktSolves {
 public:
  /// prefix: the PETSc options prefix of the KKT solver ("ida_", "rk_").
  KktSolves(const Model& m, const AssemblyPlan& plan, const std::string& prefix);

  /// v' (nv) and lambda (nc) at s (unit quaternions; positions and velocities need not be
  /// consistent: the accelerations satisfy C_q v' = gamma at s). kSingular: the matrix at s.
  Status accelerations(const State& s, VecX& vdot, VecX& lambda);

  /// Projects s.q onto C = 0 (simplified Newton, minimum M-norm corrections, until |C|_inf <=
  /// position_tolerance, m; at most 20 iterations) and s.v onto C_q v + C_t = 0 (one minimum
  /// M-norm correction), then computes v' and s.lambda there.
  Status project(State& s, double position_tolerance, VecX& vdot);

  /// |C|_inf (m) and |C_q v + C_t|_inf at s.
  std::pair<double, double> drift(const State& s);

  /// Factorizations so far (each accelerations() makes one, project() two or more).
  long factorizations() const { return factorizations_; }

 private:
  Status factorAt(const VecX& q, double t);
  Status solveAccelerations(const State& s, VecX& vdot, VecX& lambda);

  const Model& m_;
  const AssemblyPlan& plan_;
  SparseMatrixCSR Cq_, M_;
  VecX C_, Ct_, rate_, f_, gamma_;
  SaddlePointSolver kkt_;
  long factorizations_ = 0;
};

}  // namespace catena
