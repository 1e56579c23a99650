#pragma once
/// @file driven_chain.hpp
/// A small rheonomic mechanism the MCS tests share (unit and verification).

#include <string>

#include "model/model_builder.hpp"

namespace catena::test {

inline Marker marker(const std::string& name, Index body, const Vec3& p) {
  Marker m;
  m.name = name;
  m.body = body;
  m.position = p;
  return m;
}

/// Two bodies hanging from the ground: the first on a driven revolute (angle 0.5 sin(2 pi 0.7 t)
/// about x), the second on a free revolute; 3D or 2D. Rheonomic: C_t and gamma carry the drive.
inline Model drivenChain(int dimension) {
  ModelBuilder b(dimension, "driven_chain");
  b.setGravity(dimension == 3 ? Vec3(0, 0, -9.81) : Vec3(0, -9.81, 0));
  const Vec3 down = dimension == 3 ? Vec3(0, 0, -1) : Vec3(0, -1, 0);
  auto body = [&](const char* name, double mass, const Vec3& position) {
    Body x;
    x.name = name;
    x.mass = mass;
    x.inertia = dimension == 3 ? Mat3(Vec3(0.1, 0.2, 0.3).asDiagonal()) : Mat3::Zero();
    if (dimension == 2) x.inertia(2, 2) = 0.1;
    x.position = position;
    return b.addBody(x);
  };
  const Index ia = body("a", 1.0, 0.5 * down);
  const Index ic = body("c", 2.0, 1.5 * down);
  Joint drive;
  drive.name = "drive";
  drive.type = JointType::kDrivenRevolute;
  drive.marker1 = b.addMarker(marker("a/top", ia, -0.5 * down));
  drive.marker2 = b.addMarker(marker("ground/o", kGround, Vec3::Zero()));
  drive.motion.active = true;
  drive.motion.angle = TimeFunction::sine(0.0, 0.5, 0.7, 0.0);
  b.addJoint(drive);
  Joint hinge;
  hinge.name = "hinge";
  hinge.type = JointType::kRevolute;
  hinge.marker1 = b.addMarker(marker("c/top", ic, -0.5 * down));
  hinge.marker2 = b.addMarker(marker("a/tip", ia, 0.5 * down));
  b.addJoint(hinge);
  return b.finalize();
}

}  // namespace catena::test
