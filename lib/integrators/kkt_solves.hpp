#pragma once
/// @file kkt_solves.hpp
/// The KKT solves of the index-1 integrators (IDA index 1, explicit Runge-Kutta) and of IDA's
/// start, on one process: consistent accelerations and multipliers
///   [M C_q^T; C_q 0] [v'; lambda] = [f; gamma],
/// and the mass-weighted projection of q and v onto C = 0 and C_q v + C_t = 0. One
/// factorization per configuration: the range-space form (solvers/range_space.hpp) where every
/// body has a regular mass matrix and no -PREFIX PETSc solver option is given, else, and
/// wherever the range-space form refuses a configuration, the KKT matrix (SaddlePointSolver,
/// KLU by default). Internal to lib/integrators. model and plan must outlive the object; PETSc
/// must be initialized.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "assembly/plan.hpp"
#include "core/status.hpp"
#include "model/state.hpp"
#include "solvers/range_space.hpp"
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
  /// Of these, the ones the range-space form refused (factored as the KKT matrix instead).
  long kktFallbacks() const { return fallbacks_; }
  /// How the systems are solved, for reports: "range-space KKT solves" or "KKT matrix, klu"
  /// (the package; where the range-space form does not apply or PETSc options chose it).
  std::string solver() const;

 private:
  Status factorAt(const VecX& q, double t);
  Status factorKkt();
  /// [M C_q^T; C_q 0] [x; y] = [f; g] with the last factorAt's matrices.
  Status solve(const VecX& f, const VecX& g, VecX& x, VecX& y);
  Status solveAccelerations(const State& s, VecX& vdot, VecX& lambda);

  const Model& m_;
  const AssemblyPlan& plan_;
  SparseMatrixCSR Cq_, M_;
  VecX C_, Ct_, rate_, f_, gamma_;
  const std::string prefix_;
  const std::vector<std::uint8_t> mass_nonzero_;
  RangeSpaceKkt range_;
  std::unique_ptr<SaddlePointSolver> kkt_;  // made at the first configuration range_ refuses
  bool use_range_ = false;       // range_ applies (so far) and no PETSc option chose the KKT solver
  bool range_factored_ = false;  // the last factorAt's factorization is range_'s
  long factorizations_ = 0, fallbacks_ = 0;
};

}  // namespace catena
