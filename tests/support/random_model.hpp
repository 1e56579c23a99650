#pragma once
/// @file random_model.hpp
/// Small random mechanisms for assembly tests: every joint type between random bodies (some to
/// the ground), optional rheonomic motions, springs, rotational springs and loads.

#include <vector>

#include "model/model_builder.hpp"
#include "model/state.hpp"
#include "test_support.hpp"

namespace catena::test {

inline TimeFunction randomSine(Random& rnd) {
  return TimeFunction::sine(rnd.uniform(), rnd.uniform(0.2, 1.0), rnd.uniform(0.1, 1.0),
                            rnd.uniform());
}

inline Body randomBody(Random& rnd, int dim, int i) {
  Body b;
  b.name = "body_" + std::to_string(i);
  b.mass = rnd.uniform(0.5, 3.0);
  if (dim == 3) {
    const Vec3 p(rnd.uniform(0.5, 1.0), rnd.uniform(0.5, 1.0), rnd.uniform(0.5, 1.0));
    const Mat3 R = rnd.quat().toRotationMatrix();
    b.inertia = R * Vec3(p.y() + p.z(), p.x() + p.z(), p.x() + p.y()).asDiagonal() * R.transpose();
    b.com = rnd.vec3(0.3);
    b.position = rnd.vec3(2.0);
    b.orientation = rnd.quat();
  } else {
    b.inertia(2, 2) = rnd.uniform(0.1, 1.0);
    b.com = Vec3(rnd.uniform(-0.3, 0.3), rnd.uniform(-0.3, 0.3), 0.0);
    b.position = Vec3(rnd.uniform(-2, 2), rnd.uniform(-2, 2), 0.0);
    b.orientation = Quat(Eigen::AngleAxisd(rnd.uniform(-3, 3), Vec3::UnitZ()));
  }
  return b;
}

/// aligned: the marker frame is parallel to its body frame (identity rotation).
inline Marker randomMarker(Random& rnd, int dim, Index body, const std::string& name,
                           bool aligned = false) {
  Marker m;
  m.name = name;
  m.body = body;
  if (dim == 3) {
    m.position = rnd.vec3(0.7);
    m.orientation = aligned ? Quat::Identity() : rnd.quat();
  } else {
    m.position = Vec3(rnd.uniform(-0.7, 0.7), rnd.uniform(-0.7, 0.7), 0.0);
    m.orientation =
        aligned ? Quat::Identity() : Quat(Eigen::AngleAxisd(rnd.uniform(-3, 3), Vec3::UnitZ()));
  }
  return m;
}

/// Adds a joint of the given type between body1 and body2 (either may be kGround) with fresh
/// random markers; rheonomic adds a motion acting on the joint's kept rows.
inline Index addRandomJoint(Random& rnd, ModelBuilder& b, JointType type, Index body1, Index body2,
                            bool rheonomic, RowMask lock_mask = 0, bool aligned = false) {
  const int dim = b.dimension();
  std::string name = "j";
  name += std::to_string(b.peek().joints.size());  // (GCC 12 -Wrestrict false positive on "j" + s)
  Joint j;
  j.name = name;
  j.type = type;
  j.mask = lock_mask;
  j.marker1 = b.addMarker(randomMarker(rnd, dim, body1, name + "/1", aligned));
  j.marker2 = b.addMarker(randomMarker(rnd, dim, body2, name + "/2", aligned));
  const RowMask mask = type == JointType::kLock ? lock_mask : *defaultMask(type, dim);
  if (type == JointType::kDistance) {
    j.length = rheonomic ? TimeFunction::sine(1.0, 0.3, 0.5, 0.2) : TimeFunction::constant(1.2);
  } else if (rheonomic) {
    j.motion.active = true;
    const RowMask trans = dim == 3 ? 0b000111 : 0b011, rot = dim == 3 ? 0b111000 : 0b100;
    if (mask & trans)
      for (int k = 0; k < dim; ++k) j.motion.translation[k] = randomSine(rnd);
    if (mask & rot) {
      j.motion.angle = randomSine(rnd);
      if (dim == 3) j.motion.axis = rnd.vec3().normalized();
    }
  }
  return b.addJoint(std::move(j));
}

/// Every joint type of the dimension, each between random bodies (every third to the ground),
/// plus springs, rotational springs and loads; nbodies >= 3.
inline Model randomModel(Random& rnd, int dim, int nbodies, bool rheonomic, bool forces = true) {
  ModelBuilder b(dim, "random");
  b.setGravity(dim == 3 ? rnd.vec3(10.0) : Vec3(rnd.uniform(-10, 10), rnd.uniform(-10, 10), 0));
  for (int i = 0; i < nbodies; ++i) b.addBody(randomBody(rnd, dim, i));
  std::vector<JointType> types = dim == 3 ? std::vector<JointType>{JointType::kFix,
                                                                   JointType::kRevolute,
                                                                   JointType::kSpherical,
                                                                   JointType::kPrismatic,
                                                                   JointType::kCylindrical,
                                                                   JointType::kUniversal,
                                                                   JointType::kPlanar,
                                                                   JointType::kParallel,
                                                                   JointType::kOrthogonal,
                                                                   JointType::kDistanceAlongX,
                                                                   JointType::kPointOnLine,
                                                                   JointType::kDrivenRevolute,
                                                                   JointType::kDrivenPrismatic,
                                                                   JointType::kLock}
                                          : std::vector<JointType>{JointType::kFix,
                                                                   JointType::kRevolute,
                                                                   JointType::kPrismatic,
                                                                   JointType::kDrivenRevolute,
                                                                   JointType::kDrivenPrismatic,
                                                                   JointType::kLock,
                                                                   JointType::kDistance};
  int k = 0;
  for (JointType t : types) {
    const Index b1 = k % nbodies;
    const Index b2 = (k % 3 == 2) ? kGround : (k + 1) % nbodies;
    const RowMask lock = dim == 3 ? 0b101101 : 0b101;
    addRandomJoint(rnd, b, t, b1, b2, rheonomic, t == JointType::kLock ? lock : 0);
    ++k;
  }
  if (forces) {
    for (int i = 0; i < 3; ++i) {
      const Index b1 = i % nbodies, b2 = i == 2 ? kGround : (i + 2) % nbodies;
      const std::string n = std::to_string(i);
      SpringDamper s{"spring" + n,
                     b.addMarker(randomMarker(rnd, dim, b1, "s" + n + "/1")),
                     b.addMarker(randomMarker(rnd, dim, b2, "s" + n + "/2")),
                     rnd.uniform(10, 100),
                     rnd.uniform(0, 3),
                     rnd.uniform(0.1, 1.0),
                     rnd.uniform(-2, 2)};
      b.addSpring(s);
      RotationalSpringDamper r{
          "rspring" + n,
          b.addMarker(randomMarker(rnd, dim, b2 == kGround ? b1 : b2, "r" + n + "/1")),
          b.addMarker(randomMarker(rnd, dim, b2 == kGround ? kGround : b1, "r" + n + "/2")),
          rnd.uniform(10, 100),
          rnd.uniform(0, 3),
          rnd.uniform(-1, 1)};
      b.addRotationalSpring(r);
      MarkerLoad l{"load" + n,
                   b.addMarker(randomMarker(rnd, dim, b1, "l" + n)),
                   dim == 3 ? rnd.vec3(10) : Vec3(rnd.uniform(), rnd.uniform(), 0),
                   dim == 3 ? rnd.vec3(3) : Vec3(0, 0, rnd.uniform()),
                   i == 1,
                   randomSine(rnd)};
      b.addLoad(l);
    }
  }
  return b.finalize();
}

/// A random state around the model's initial one.
inline State randomState(Random& rnd, const Model& model) {
  State s = initialState(model);
  VecX dq(model.nv);
  for (Index i = 0; i < model.nv; ++i) dq(i) = rnd.uniform();
  applyVariation(model, dq, 0.3, s.q);
  for (Index i = 0; i < model.nv; ++i) s.v(i) = rnd.uniform(-1.5, 1.5);
  s.lambda.resize(model.nc);
  for (Index i = 0; i < model.nc; ++i) s.lambda(i) = rnd.uniform(-10, 10);
  s.t = rnd.uniform(0.0, 2.0);
  return s;
}

}  // namespace catena::test
