#pragma once
/// @file body.hpp
/// Rigid-body kernels. Equations of motion per body: M(q) dv/dt + f_g(q, v) = f_applied, with
/// the centre of mass allowed off the body frame (offset c, inertia J_G about the centre of
/// mass). 3D mixed basis, J_O = J_G - m c~ c~:
///   M = [ m I, -m R c~ ; m c~ R^T, J_O ],  f_g = [ m R (w x (w x c)) ; w x J_O w ],
///   gravity = [ m g ; m c x (R^T g) ].
/// 2D (x, y, theta), a = R c:  M = [ m I, m E a ; m (E a)^T, I_G + m |c|^2 ],
///   f_g = [ -m w^2 a ; 0 ],  gravity = [ m g ; m a x g ].

#include "kernels/pose.hpp"
#include "model/model.hpp"

namespace catena {

/// Mass matrix block (6 x 6) of a 3D body.
Mat6 computeBodyMass3(const Body& b, const Mat3& R);
/// M a (6) without forming M: m R u and J_G alpha + m c x u, u = R^T a_r - c x alpha. A Newton
/// residual needs it at every iteration, M only when its matrix is rebuilt.
Vec6 computeBodyMassTimes3(const Body& b, const Mat3& R, const Vec6& a);
/// Gyroscopic and centrifugal forces f_g (left-hand side).
Vec6 computeBodyInertialForces3(const Body& b, const Mat3& R, const Vec3& w);
/// Weight as a generalized force (right-hand side).
Vec6 computeBodyGravity3(const Body& b, const Mat3& R, const Vec3& g);
/// d f_g / d v (6 x 6): the gyroscopic damping.
Mat6 computeBodyInertialDamping3(const Body& b, const Mat3& R, const Vec3& w);
/// d(M a + f_g - gravity)/dq (6 x 6) in the (delta r, theta) variables, for an acceleration a.
Mat6 computeBodyStiffness3(const Body& b, const Mat3& R, const Vec3& w, const Vec6& a,
                           const Vec3& g);

/// The same for a 2D body (x, y, theta): R = rot2(theta), w = dtheta/dt (rad/s), a the body's
/// acceleration (3), g gravity (m/s^2). Mass (3 x 3), f_g (3), gravity (3), d f_g / d v (3 x 3)
/// and d(M a + f_g - gravity)/dq (3 x 3), as the 3D functions above. Pure, no allocation.
Mat3 computeBodyMass2(const Body& b, const Mat2& R);
Vec3 computeBodyInertialForces2(const Body& b, const Mat2& R, double w);
Vec3 computeBodyGravity2(const Body& b, const Mat2& R, const Vec2& g);
Mat3 computeBodyInertialDamping2(const Body& b, const Mat2& R, double w);
Mat3 computeBodyStiffness2(const Body& b, const Mat2& R, double w, const Vec3& a, const Vec2& g);

}  // namespace catena
