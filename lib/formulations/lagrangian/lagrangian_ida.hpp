#pragma once
/// @file lagrangian_ida.hpp
/// The momentum-form Euler-Lagrange DAE (lagrangian_dae.hpp) integrated by SUNDIALS IDA
/// (variable-order BDF, dense direct solver) with the Newton matrix dF/dy + c_j dF/dy' from
/// algorithmic differentiation. Only lagrangian_ida.cpp sees SUNDIALS.
/// Error test (IDASetId + IDASetSuppressAlg): the stabilized index-2 form tests q, v, p and
/// leaves out lambda, mu; the index-3 form tests q only (v, p, lambda are index-2/3 variables
/// that BDF cannot resolve to the tolerance; docs/lagrangian-facility.md). The left-out
/// components still weigh the Newton convergence test through multiplier_atol (v, p: atol).

#include <functional>
#include <string>

#include "core/status.hpp"
#include "formulations/lagrangian/lagrangian_dae.hpp"

namespace catena::lagrangian {

struct LagrangianIdaOptions {
  LagrangianForm form = LagrangianForm::kStabilizedIndex2;
  double t_end = 1.0;            ///< s
  double output_interval = 0.0;  ///< s; 0: the observer sees every accepted step
  double rtol = 1e-8;
  double atol = 1e-10;            ///< q, v, p (their own units)
  double multiplier_atol = 1e-2;  ///< lambda, mu (out of the error test)
  int max_order = 5;
  long max_steps = 500'000;
  /// s; 0: 1e-6 (t_end - t0); < 0: IDA's own choice, which at tight tolerances can be so small
  /// that the Newton matrix (conditioned like h^-2 in GGL, h^-3 in index 3) fails to converge
  /// in the first step (docs/lagrangian-facility.md).
  double initial_step = 0.0;
};

struct LagrangianRunStats {
  long steps = 0;
  long residual_evaluations = 0;
  long newton_iterations = 0;
  long convergence_failures = 0;
  long error_test_failures = 0;
  long jacobian_evaluations = 0;
  double wall_seconds = 0.0;
  double max_position_drift = 0.0;  ///< max |C| over the observed states
  double max_velocity_drift = 0.0;  ///< max |C_q v|
};

/// Called at t0 and every output time with the state (after t0, vdot and pdot are the BDF
/// derivatives of IDA's y'); return false to stop (status stays ok).
using LagrangianObserver = std::function<bool(const LagrangianState&)>;

struct LagrangianRunResult {
  Status status;
  LagrangianState state;  ///< the last state reached
  LagrangianRunStats stats;
  std::string method;
};

/// Integrates from a consistent `initial` (computeConsistentLagrangianState) to t_end. Never
/// throws on numerical failure (Status).
LagrangianRunResult integrateLagrangianIda(const LagrangianSystem& sys,
                                           const LagrangianState& initial,
                                           const LagrangianIdaOptions& options,
                                           const LagrangianObserver& observer);

}  // namespace catena::lagrangian
