#pragma once
/// @file rm_two_step.hpp
/// The rotation-matrix paper's two-step elimination of the Lagrange multipliers (sec. 5;
/// docs/rotation-matrix-bodies.md), giving the accelerations as an ODE q'' = a(q, q'), and its
/// integration with ARKODE's explicit Runge-Kutta (ERKStep) with a projection onto the
/// constraints after the steps that drift.
///
/// Step 1 (per body, eq. 25): for given joint multipliers, Lambda K^-1 + K^-1 Lambda = B solved in
/// closed form in the principal axes of K = K_G0 (rm_body.hpp computeBodyAcceleration).
/// Step 2 (eq. 24): the accelerations are affine in the joint multipliers lambda_J; the joint
/// acceleration constraints C_J,q q'' = gamma_J give the m_J x m_J system
///   S lambda_J = gamma_J - C_J,q q''(lambda_J = 0),  S = C_J,q d q''/d lambda_J,
/// S = -C_J,q Mbar C_J,q^T with Mbar the inverse mass restricted to orthogonal motions (the joint
/// force is -C_J,q^T lambda_J): symmetric, negative definite when the joints are independent. S is
/// formed column by column from unit joint multipliers (each touches two bodies) and factored by a
/// dense LU. Step 1 assumes R^T R = I; the integrator keeps it by the projection.

#include <Eigen/Core>
#include <Eigen/LU>
#include <vector>

#include "formulations/rotation_matrix/rm_model.hpp"
#include "formulations/rotation_matrix/rm_run.hpp"

namespace catena::rm {

/// Buffers of the elimination and of the projection, sized once for a model.
struct RmTwoStepWorkspace {
  explicit RmTwoStepWorkspace(const RmModel& model);
  std::vector<Vec3> X;       ///< per body, generalized force on T*
  std::vector<Mat3> Y;       ///< per body, generalized force on R
  std::vector<Mat3> Lambda;  ///< per body, orthogonality multipliers
  MatX S;                    ///< m_J x m_J, step 2
  VecX qdd0, rhs, lambda_joints;
  Eigen::PartialPivLU<MatX> lu;
  // Projection (m x n, n x n, m x m).
  MatX M_inverse, Cq, W;
  VecX C, dq;
  Eigen::PartialPivLU<MatX> w_lu;
};

/// Step 1 for all bodies: q'' (n) for given joint multipliers lambda_J (m_J), with gravity and
/// the velocity terms; optionally writes the orthogonality multipliers (6 per body) into
/// orthogonality (m_orthogonality).
void computeRmAccelerationsForJointMultipliers(const RmModel& model, const VecX& q, const VecX& v,
                                               const VecX& lambda_joints, RmTwoStepWorkspace& ws,
                                               VecX& qdd, VecX* orthogonality = nullptr);

/// Step 2's matrix S (m_J x m_J) at q into ws.S.
void computeRmJointSchurMatrix(const RmModel& model, const VecX& q, RmTwoStepWorkspace& ws);

/// Both steps: q'' (n) and all multipliers lambda (m: orthogonality, then joints) if non-null.
/// Fails (kSingular) if S is singular (dependent joints).
Status computeRmAccelerationsTwoStep(const RmModel& model, const VecX& q, const VecX& v,
                                     RmTwoStepWorkspace& ws, VecX& qdd, VecX* lambda = nullptr);

/// The oracle: the full (n + m) KKT system [M C_q^T; C_q 0] [q''; lambda] = [f; gamma], dense LU.
/// Allocates; for tests, initial conditions and comparisons.
Status computeRmAccelerationsKkt(const RmModel& model, const VecX& q, const VecX& v, VecX& qdd,
                                 VecX& lambda);

/// Projects (q, v) onto C(q) = 0 and C_q v = 0 in the kinetic metric M:
/// q -= M^-1 C_q^T (C_q M^-1 C_q^T)^-1 C until |C|_inf <= tolerance (orthogonality rows) and
/// tolerance * length scale (joint rows), then v -= M^-1 C_q^T (C_q M^-1 C_q^T)^-1 C_q v.
Status projectRmState(const RmModel& model, RmTwoStepWorkspace& ws, VecX& q, VecX& v,
                      double tolerance, int max_iterations = 10);

enum class RmErkTable {
  kDormandPrince45,  ///< ARKODE_DORMAND_PRINCE_7_4_5
  kFehlberg78,       ///< ARKODE_FEHLBERG_13_7_8
};

struct RmTwoStepOptions {
  double t_end = 1.0;            ///< s
  double output_interval = 0.0;  ///< s; 0: the observer sees every accepted step
  double rtol = 1e-8;
  double atol = 1e-10;  ///< on T* (m), R entries, and their rates
  RmErkTable table = RmErkTable::kDormandPrince45;
  /// After an accepted step whose drift exceeds this (orthogonality rows, joint rows / length
  /// scale, velocity rows / max(1, |v|_inf)), the state is projected (projectRmState) to 1e-3 of
  /// it. 0: project after every step.
  double projection_tolerance = 1e-10;
  long max_steps = 1'000'000;
};

/// Integrates y = (q, q') with ERKStep from `initial` (t0 = initial.t; must satisfy C = 0 and
/// C_q v = 0) to t_end. Never throws on numerical failure (Status).
RmRunResult integrateRmTwoStep(const RmModel& model, const RmState& initial,
                               const RmTwoStepOptions& options, const RmObserver& observer);

}  // namespace catena::rm
