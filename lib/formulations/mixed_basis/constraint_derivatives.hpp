#pragma once
/// @file constraint_derivatives.hpp
/// Position and velocity derivatives of the velocity- and acceleration-level constraints, which
/// the Newton matrices of the DAE formulations need (formulations/mixed_basis/multibody_dae.hpp)
/// and assembly does not provide. All are in velocity space (variations (delta r, theta_B) per
/// body, NOTATION.md) and written into the pattern of C_q: a joint's rows depend only on its two
/// bodies. Pure refills, no allocation, OpenMP over joints (each joint writes its own rows).
///
/// - d(C_q x)/dq for a fixed vector x (nv): row i is x^T K_c(e_i), K_c of the unit multiplier of
///   row i (K_c(lambda)[k, l] = d C_q[i, k] / dq_l summed with lambda_i, so the same tensor
///   contracted on the other index). With the time term, dC_t/dq is added: C_t of a 3D
///   rheonomic rotation row equals C_q[row, theta_1] (-A1 w_t) (docs/kernels.md: C_t =
///   -P R_t w_t, C_q[rot, theta_1] = P R_t A1^T), so its derivative is the same contraction
///   with -A1 w_t in body 1's rotation slot; every other C_t is independent of q.
/// - d gamma/dq and d gamma/dv: analytic derivatives of the kernels' gamma
///   (docs/dynamics-ida.md has the formulas). Finite-difference checks:
///   tests/unit/analysis/ida_jacobian_test.cpp.

#include "assembly/plan.hpp"

namespace catena {

/// out = d(C_q(q, t) x)/dq (+ dC_t/dq if with_time_derivative), nc x nv in the C_q pattern
/// (out must come from makeConstraintMatrix). q must hold unit quaternions.
void assembleJacobianProductDerivative(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                       double t, const VecX& x, bool with_time_derivative,
                                       SparseMatrixCSR& out);

/// gamma_q = d gamma/dq and gamma_v = d gamma/dv (nc x nv each, C_q pattern) of the acceleration
/// right-hand side C_q dv/dt = gamma(q, v, t) (assembleGamma). q must hold unit quaternions.
void assembleGammaDerivatives(const Model& model, const AssemblyPlan& plan, const VecX& q,
                              const VecX& v, double t, SparseMatrixCSR& gamma_q,
                              SparseMatrixCSR& gamma_v);

}  // namespace catena
