#pragma once
/// @file pendulum_model.hpp
/// The planar pendulum of the dynamics verification: a point mass on a massless rod, as a
/// catena model (ida_test, accuracy_test; the closed form and the reference ODE are elsewhere).

#include <cmath>

#include "model/model_builder.hpp"

namespace catena::test {

/// Planar point mass (1 kg) on a massless rod of length L (m) hinged at the origin, gravity
/// 9.81 m/s^2 along -y, released from rest at theta0 (rad) from the downward vertical (mass at
/// (L sin theta0, -L cos theta0)).
inline Model planarPendulum(double L, double theta0) {
  ModelBuilder b(2, "planar_pendulum");
  b.setGravity(Vec3(0, -9.81, 0));
  Body bob;
  bob.name = "bob";
  bob.mass = 1.0;
  bob.position = Vec3(L * std::sin(theta0), -L * std::cos(theta0), 0);
  bob.orientation = Quat(Eigen::AngleAxisd(theta0, Vec3::UnitZ()));
  const Index body = b.addBody(bob);
  Marker hinge_bob, hinge_ground;
  hinge_bob.name = "bob/hinge";
  hinge_bob.body = body;
  hinge_bob.position = Vec3(0, L, 0);
  hinge_ground.name = "ground/hinge";
  hinge_ground.body = kGround;
  Joint j;
  j.name = "hinge";
  j.type = JointType::kRevolute;
  j.marker1 = b.addMarker(hinge_bob);
  j.marker2 = b.addMarker(hinge_ground);
  b.addJoint(j);
  return b.finalize();
}

}  // namespace catena::test
