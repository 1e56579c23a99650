#pragma once
/// @file free_top.hpp
/// The natural-coordinates paper's free top (its Example 3 and the listing of sec. 3): a rigid
/// body with its centroid fixed at the origin and no forces, q = (u, v), two orthonormal body
/// vectors along principal axes, w = u x v, Q = [u v w]:
///   w' = u' x v + u x v',  omega = (w . v', u . w', v . u')  (body frame),
///   L = (I_u omega_1^2 + I_v omega_2^2 + I_w omega_3^2) / 2,
///   C = (u . u - 1, v . v - 1, u . v).
/// Invariants: the energy L and the world angular momentum Q diag(I) omega.

#include "formulations/lagrangian/lagrangian_ad.hpp"

namespace catena::lagrangian::examples {

struct FreeTop {
  static constexpr int nq = 6, nc = 3;
  double Iu = 1.0, Iv = 2.0, Iw = 3.0;  ///< principal moments of inertia [kg m^2]

  template <class S>
  static LVec<S, 3> bodyAngularVelocity(const LVec<S, 6>& q, const LVec<S, 6>& qd) {
    const LVec<S, 3> u = q.template head<3>(), v = q.template tail<3>();
    const LVec<S, 3> ud = qd.template head<3>(), vd = qd.template tail<3>();
    const LVec<S, 3> w = u.cross(v);
    const LVec<S, 3> wd = ud.cross(v) + u.cross(vd);
    return LVec<S, 3>(w.dot(vd), u.dot(wd), v.dot(ud));
  }

  template <class S>
  void operator()(const LVec<S, 6>& q, const LVec<S, 6>& qd, S& L, LVec<S, 3>& C) const {
    const LVec<S, 3> u = q.template head<3>(), v = q.template tail<3>();
    const LVec<S, 3> om = bodyAngularVelocity(q, qd);
    L = 0.5 * (Iu * om(0) * om(0) + Iv * om(1) * om(1) + Iw * om(2) * om(2));
    C(0) = u.dot(u) - 1.0;
    C(1) = v.dot(v) - 1.0;
    C(2) = u.dot(v);
  }

  /// World angular momentum Q diag(I) omega [kg m^2/s].
  Vec3 angularMomentum(const VecX& q, const VecX& qd) const {
    const LVec<double, 6> qf = q, qdf = qd;
    const Vec3 u = qf.head<3>(), v = qf.tail<3>();
    Mat3 Q;
    Q << u, v, u.cross(v);
    return Q * (Vec3(Iu, Iv, Iw).asDiagonal() * bodyAngularVelocity(qf, qdf));
  }
};

}  // namespace catena::lagrangian::examples
