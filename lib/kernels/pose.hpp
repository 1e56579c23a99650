#pragma once
/// @file pose.hpp
/// Body poses and twists read from the flat state vectors through the DOF map. Kernels take these
/// small fixed-size values; the ground is the identity pose with zero twist.

#include "core/types.hpp"
#include "math/rotation.hpp"
#include "model/model.hpp"

namespace catena {

/// 3D pose: r_WB_W, rho (unit quaternion R_WB) and its rotation matrix.
struct Pose3 {
  Vec3 r = Vec3::Zero();
  Quat rho = Quat::Identity();
  Mat3 R = Mat3::Identity();
};

/// 3D twist in the mixed basis: v_WB_W and w_WB_B.
struct Twist3 {
  Vec3 v = Vec3::Zero();
  Vec3 w = Vec3::Zero();
};

struct Pose2 {
  Vec2 r = Vec2::Zero();
  double theta = 0.0;
  Mat2 R = Mat2::Identity();
};

struct Twist2 {
  Vec2 v = Vec2::Zero();
  double w = 0.0;
};

/// A marker frame in its body: p_BF_B and R_BF (2D: the angle about z as well).
struct MarkerFrame {
  Vec3 p = Vec3::Zero();
  Mat3 A = Mat3::Identity();
  Quat alpha = Quat::Identity();
  double angle = 0.0;  ///< 2D only
};

/// Pose from one 3D body's 7 position coordinates: r (3), then the quaternion (s, vx, vy, vz).
/// The quaternion is used as stored (not normalized).
inline Pose3 pose3(const double* q_body) {
  Pose3 p;
  p.r = Vec3(q_body[0], q_body[1], q_body[2]);
  p.rho = Quat(q_body[3], q_body[4], q_body[5], q_body[6]);
  p.R = p.rho.toRotationMatrix();
  return p;
}

/// Twist from one 3D body's 6 velocity coordinates (v_WB_W, then w_WB_B).
inline Twist3 twist3(const double* v_body) {
  return {Vec3(v_body[0], v_body[1], v_body[2]), Vec3(v_body[3], v_body[4], v_body[5])};
}

/// Pose and twist of a 2D body from its 3 coordinates (x, y, theta) or rates.
inline Pose2 pose2(const double* q_body) {
  Pose2 p;
  p.r = Vec2(q_body[0], q_body[1]);
  p.theta = q_body[2];
  p.R = rot2(p.theta);
  return p;
}

inline Twist2 twist2(const double* v_body) {
  return {Vec2(v_body[0], v_body[1]), v_body[2]};
}

/// The marker's frame in its body (2D: angle from the quaternion's rotation about z).
inline MarkerFrame markerFrame(const Marker& m) {
  MarkerFrame f;
  f.p = m.position;
  f.alpha = m.orientation;
  f.A = m.orientation.toRotationMatrix();
  f.angle = 2.0 * std::atan2(m.orientation.z(), m.orientation.w());
  return f;
}

/// Pose (twist) of body b from the flat position (velocity) vector; identity (zero) for the
/// ground.
inline Pose3 bodyPose3(const Model& m, const double* q, Index b) {
  return b == kGround ? Pose3{} : pose3(q + m.qOffset(b));
}
inline Twist3 bodyTwist3(const Model& m, const double* v, Index b) {
  return b == kGround ? Twist3{} : twist3(v + m.vOffset(b));
}
inline Pose2 bodyPose2(const Model& m, const double* q, Index b) {
  return b == kGround ? Pose2{} : pose2(q + m.qOffset(b));
}
inline Twist2 bodyTwist2(const Model& m, const double* v, Index b) {
  return b == kGround ? Twist2{} : twist2(v + m.vOffset(b));
}

/// World position of a marker's origin at the positions q (2D: z = 0).
inline Vec3 markerPosition(const Model& m, const double* q, Index marker) {
  const Marker& k = m.markers[marker];
  if (k.body == kGround) return k.position;
  if (m.dimension == 2) {
    const Pose2 p = pose2(q + m.qOffset(k.body));
    const Vec2 w = p.r + p.R * k.position.head<2>();
    return Vec3(w.x(), w.y(), 0.0);
  }
  const Pose3 p = pose3(q + m.qOffset(k.body));
  return p.r + p.R * k.position;
}

}  // namespace catena
