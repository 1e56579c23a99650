#pragma once
/// @file rm_random_model.hpp
/// Seeded random rotation-matrix mechanisms and states for the derivative tests of
/// lib/formulations/rotation_matrix: a chain of bodies with random masses, inertias (a random
/// box, randomly turned), reference centres, joint points and ground pins.

#include <cmath>

#include "formulations/rotation_matrix/rm_model.hpp"
#include "test_support.hpp"

namespace catena::test {

/// A chain of nb bodies: body 0 pinned to the ground, body i to body i - 1, optionally body
/// nb - 1 pinned to the ground as well (a closed loop).
inline rm::RmModel randomRmChain(Random& rnd, int nb, bool closed = false) {
  rm::RmModel m;
  m.name = "random_rm_chain";
  m.gravity = rnd.vec3(10.0);
  for (int i = 0; i < nb; ++i) {
    rm::RmBody b;
    b.name = std::to_string(i);
    b.name.insert(0, "body_");
    b.mass = rnd.uniform(0.5, 3.0);
    const Vec3 p(rnd.uniform(0.5, 1.0), rnd.uniform(0.5, 1.0), rnd.uniform(0.5, 1.0));
    const Mat3 R = rnd.quat().toRotationMatrix();
    b.inertia = R * Vec3(p.y() + p.z(), p.x() + p.z(), p.x() + p.y()).asDiagonal() * R.transpose();
    b.com = rnd.vec3(2.0);
    m.bodies.push_back(b);
  }
  m.joints.push_back({"pin", 0, rnd.vec3(2.0), kGround, rnd.vec3(2.0)});
  for (int i = 1; i < nb; ++i)
    m.joints.push_back({std::to_string(i), i, rnd.vec3(2.0), i - 1, rnd.vec3(2.0)});
  if (closed) m.joints.push_back({"pin_end", nb - 1, rnd.vec3(2.0), kGround, rnd.vec3(2.0)});
  rm::finalizeRmModel(m);
  return m;
}

/// Random q: T* random, R a random rotation (orthogonal) or, with orthogonal = false, a random
/// matrix near one; v random (not necessarily admissible).
inline rm::RmState randomRmState(Random& rnd, const rm::RmModel& m, bool orthogonal = true) {
  rm::RmState s;
  s.q.resize(m.n);
  s.v.resize(m.n);
  s.lambda.setZero(m.m);
  for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b) {
    const Index o = m.qOffset(b);
    Mat3 R = rnd.quat().toRotationMatrix();
    if (!orthogonal) R += 0.2 * rnd.mat3();
    s.q.segment<3>(o) = rnd.vec3();
    s.q.segment<9>(o + 3) = Eigen::Map<const Eigen::Matrix<double, 9, 1>>(R.data());
    for (Index k = 0; k < 12; ++k) s.v(o + k) = rnd.uniform();
  }
  return s;
}

/// A skew matrix j(w): j(w) u = w x u.
inline Mat3 skew(const Vec3& w) {
  Mat3 S;
  S << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
  return S;
}

/// Admissible velocity of an orthogonal body state: R' = j(w) R (eq. 7).
inline void setRigidVelocity(const rm::RmModel& m, Index b, const Vec3& T_dot, const Vec3& w,
                             rm::RmState& s) {
  const Index o = m.qOffset(b);
  const Mat3 R = Eigen::Map<const Mat3>(s.q.data() + o + 3);
  const Mat3 Rd = skew(w) * R;
  s.v.segment<3>(o) = T_dot;
  s.v.segment<9>(o + 3) = Eigen::Map<const Eigen::Matrix<double, 9, 1>>(Rd.data());
}

}  // namespace catena::test
