#pragma once
/// @file rm_body.hpp
/// Kernels of one rotation-matrix body (docs/rotation-matrix-bodies.md): its constant mass
/// matrix, energies, gravity, the 6 orthogonality constraints and their derivatives, and the
/// first step of the paper's elimination (the Lyapunov-like equation of eq. 25). Pure functions
/// on fixed-size Eigen types; no allocation.
///
/// Body coordinates q_b = (T*, vec(R)) (12), R = [r1 r2 r3] stored column by column.
/// Orthogonality rows (the symmetric R^T R - I, halved on the diagonal so that the constraint
/// force is exactly R Lambda):
///   phi = ((|r1|^2 - 1)/2, (|r2|^2 - 1)/2, (|r3|^2 - 1)/2, r1.r2, r1.r3, r2.r3),
/// and a multiplier vector mu of the same order is the symmetric matrix
///   Lambda(mu) = [mu0 mu3 mu4; mu3 mu1 mu5; mu4 mu5 mu2],  phi_R^T mu = vec(R Lambda).

#include <Eigen/Core>

#include "core/types.hpp"
#include "formulations/rotation_matrix/rm_model.hpp"

namespace catena::rm {

using Vec12 = Eigen::Matrix<double, 12, 1>;
using Mat12 = Eigen::Matrix<double, 12, 12>;
using Mat6x9 = Eigen::Matrix<double, 6, 9>;
using Mat9 = Eigen::Matrix<double, 9, 9>;

/// Row k of the orthogonality constraint pairs columns (i, j) of R.
inline constexpr int kOrthogonalityPair[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};

/// K = tr(J)/2 I - J (eq. 11): the Poinsot matrix int r r^T dm of the inertia tensor J.
Mat3 poinsotFromInertia(const Mat3& J);

/// The symmetric matrix Lambda(mu) of 6 multipliers, and back (upper triangle).
Mat3 symmetricFromRows(const Vec6& mu);
Vec6 rowsFromSymmetric(const Mat3& S);

/// phi(R) (6), zero iff R^T R = I.
Vec6 computeOrthogonalityResidual(const Mat3& R);

/// d phi / d vec(R) (6 x 9). phi is quadratic: phi(R) = phi_R(R) vec(R) / 2 + const, so the same
/// function gives d(phi_R v)/dq = phi_R(R') for a velocity R'.
Mat6x9 computeOrthogonalityJacobian(const Mat3& R);

/// gamma with phi_R vec(R'') = gamma on motions that keep phi = 0: gamma = -(R'^T R')
/// entries (diagonal: -|r_i'|^2; off-diagonal: -2 r_i'.r_j').
Vec6 computeOrthogonalityGamma(const Mat3& R_dot);

/// d(phi_R^T mu)/d vec(R) = Lambda(mu) (x) I3 (9 x 9), constant in R.
Mat9 computeOrthogonalityHessianTimes(const Vec6& mu);

/// The constant 12 x 12 mass matrix of T = 1/2 int |T*' + R' X|^2 dm:
///   [m I, m X_G^T (x) I; m X_G (x) I, K_O (x) I]   (K_O = K_G0 + m X_G X_G^T).
Mat12 computeBodyMassMatrix(const RmBody& body);

/// T = 1/2 m |T*'|^2 + m T*'.(R' X_G) + 1/2 tr(R' K_O R'^T), J.
double computeBodyKineticEnergy(const RmBody& body, const Vec3& T_dot, const Mat3& R_dot);
/// V = -m g.(T* + R X_G), J (zero at the origin).
double computeBodyPotentialEnergy(const RmBody& body, const Vec3& gravity, const Vec3& T,
                                  const Mat3& R);
/// Generalized weight: X = m g on T*, Y = m g X_G^T on R (eq. 21).
void computeBodyGravity(const RmBody& body, const Vec3& gravity, Vec3& X, Mat3& Y);

/// Solves Lambda K^-1 + K^-1 Lambda = B (B symmetric, K = K_G0 = V diag(k) V^T) in closed form:
/// Lambda = V [ (V^T B V)_ab k_a k_b / (k_a + k_b) ] V^T. The Lyapunov-like step 1 of the
/// paper's elimination (eq. 25).
Mat3 solvePoinsotLyapunov(const RmBody& body, const Mat3& B);

/// Step 1 for one body (eqs. 12, 23, 25): with the generalized force (X on T*, Y on R) acting
/// on the body besides the orthogonality force, and R^T R = I,
///   R'' = (B0 - R Lambda) K^-1,  T*'' = X / m - R'' X_G,  B0 = Y - X X_G^T,
///   Lambda K^-1 + K^-1 Lambda = R^T B0 K^-1 + K^-1 B0^T R + 2 R'^T R' (velocity_term),
/// where Lambda is this file's orthogonality multiplier (M q'' + phi_q^T mu = f; the paper's
/// Lambda is -Lambda). Without velocity_term the map (X, Y) -> (T*'', R'', Lambda) is linear
/// (used for the joint probes of step 2).
void computeBodyAcceleration(const RmBody& body, const Mat3& R, const Mat3& R_dot, const Vec3& X,
                             const Mat3& Y, bool velocity_term, Vec3& T_ddot, Mat3& R_ddot,
                             Mat3& Lambda);

}  // namespace catena::rm
