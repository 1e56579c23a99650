#pragma once
/// @file assemble.hpp
/// Refill the global vectors and sparse matrices from the kernels, in place, into the slots of
/// an AssemblyPlan. OpenMP over joints and bodies; results are bitwise identical for any thread
/// count (disjoint writes within a colour, colours in order). Matrices must have been created by
/// makeConstraintMatrix / makeBodyMatrix from the same plan. No allocation.
///
/// Sign convention (DESIGN.md): M dv/dt + C_q^T lambda = f, where f is the applied generalized
/// force minus the gyroscopic and centrifugal terms. K = -df/dq (+ d(M a)/dq), D = -df/dv.

#include "assembly/plan.hpp"
#include "model/model.hpp"

namespace catena {

SparseMatrixCSR makeConstraintMatrix(const AssemblyPlan& plan);  ///< nc x nv, pattern of C_q
SparseMatrixCSR makeBodyMatrix(const AssemblyPlan& plan);        ///< nv x nv, shared pattern
/// One flag per entry of the body pattern: 1 where M can be nonzero (each body's own diagonal
/// block, as assembleMass fills it), 0 elsewhere (the blocks the joints couple for K and K_c):
/// the A_nonzero of a saddle-point solver whose (1,1) block is M alone.
std::vector<std::uint8_t> massNonzero(const Model& model, const AssemblyPlan& plan);

/// The value array of a matrix: matrices of one pattern combine by their values (K + K_c).
inline Eigen::Map<VecX> values(SparseMatrixCSR& A) {
  return {A.valuePtr(), A.nonZeros()};
}
inline Eigen::Map<const VecX> values(const SparseMatrixCSR& A) {
  return {A.valuePtr(), A.nonZeros()};
}

/// Constraint residual C(q, t) (nc) and/or Jacobian C_q (nc x nv); either may be null.
void assembleConstraints(const Model& model, const AssemblyPlan& plan, const VecX& q, double t,
                         VecX* C, SparseMatrixCSR* Cq);
/// Partial time derivative C_t (nc).
void assembleConstraintTimeDerivative(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                      double t, VecX& Ct);
/// out[r] = (C_q v + C_t)(r) for every row r (nc entries), each row's terms of body 1 summed
/// before those of body 2 whatever the local body order: the same bits on a rank that holds
/// the joint with a ghost body (integrators/distributed_dynamics.hpp). No allocation.
void velocityConstraints(const Model& model, const SparseMatrixCSR& Cq, const VecX& v,
                         const VecX& Ct, double* out);
/// Acceleration right-hand side gamma (nc): C_q dv/dt = gamma.
void assembleGamma(const Model& model, const AssemblyPlan& plan, const VecX& q, const VecX& v,
                   double t, VecX& gamma);
/// Tangent stiffness of constraints K_c = d(C_q^T lambda)/dq (nv x nv) at fixed lambda (nc).
void assembleConstraintStiffness(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                 double t, const VecX& lambda, SparseMatrixCSR& Kc);
/// A += K_c (A in the body pattern, e.g. holding K = -df/dq): the tangent of statics without a
/// matrix for K_c. The joints add their terms in the order in which they build K_c's blocks.
void addConstraintStiffness(const Model& model, const AssemblyPlan& plan, const VecX& q, double t,
                            const VecX& lambda, SparseMatrixCSR& A);
/// C_q and K_c together, sharing the per-joint frames (the hot path of Newton iterations).
void assembleConstraintJacobianAndStiffness(const Model& model, const AssemblyPlan& plan,
                                            const VecX& q, double t, const VecX& lambda,
                                            SparseMatrixCSR& Cq, SparseMatrixCSR& Kc);
/// Constraint forces C_q^T lambda (nv), computed joint by joint.
void assembleConstraintForces(const Model& model, const AssemblyPlan& plan, const VecX& q, double t,
                              const VecX& lambda, VecX& out);
/// C (nc) and C_q^T lambda (nv) from one evaluation of each joint's frames, without C_q: a
/// Newton residual needs both at every iteration and C_q only when its matrix is rebuilt.
void assembleConstraintsAndForces(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                  double t, const VecX& lambda, VecX& C, VecX& forces);
/// Mass matrix M(q).
void assembleMass(const Model& model, const AssemblyPlan& plan, const VecX& q, SparseMatrixCSR& M);
/// M(q) a (nv) body by body, without the matrix: a Newton residual needs the product at every
/// iteration and the matrix only when its iteration matrix is rebuilt.
void assembleMassTimes(const Model& model, const VecX& q, const VecX& a, VecX& out);
/// Generalized forces f(q, v, t) (nv): gravity, marker loads, springs, minus gyroscopic terms.
void assembleForces(const Model& model, const AssemblyPlan& plan, const VecX& q, const VecX& v,
                    double t, VecX& f);
/// The scale of f entry by entry: the sum of the magnitudes of the terms that make it up (each
/// body's gravity and inertial forces, each spring's and load's contribution), which the net f
/// of a body hung on a spring, near zero, does not show (statics' convergence test).
void assembleForceMagnitudes(const Model& model, const AssemblyPlan& plan, const VecX& q,
                             const VecX& v, double t, VecX& magnitudes);
/// K = -df/dq and D = -df/dv. With accel (nv) non-null, K also gets d(M(q) a)/dq.
void assembleForceJacobians(const Model& model, const AssemblyPlan& plan, const VecX& q,
                            const VecX& v, double t, const VecX* accel, SparseMatrixCSR& K,
                            SparseMatrixCSR& D);
/// K = -df/dq alone, equal to assembleForceJacobians' K (no accel): for statics, which has no
/// use for D and need not keep an nv x nv matrix for it.
void assembleForceStiffness(const Model& model, const AssemblyPlan& plan, const VecX& q,
                            const VecX& v, double t, SparseMatrixCSR& K);

}  // namespace catena
