#pragma once
/// @file kernel_test_support.hpp
/// What the finite-difference tests of the kernels share: poses from coordinates, and two-body
/// states moved along one body coordinate or advanced in time along their twists.

#include <type_traits>

#include "kernels/pose.hpp"
#include "test_support.hpp"

namespace catena::test {

/// A planar pose from its position and angle (rad), or a spatial one from its position and unit
/// quaternion; the rotation matrix filled in.
inline Pose2 makePose(const Vec2& r, double theta) {
  Pose2 p;
  p.r = r;
  p.theta = theta;
  p.R = rot2(theta);
  return p;
}
inline Pose3 makePose(const Vec3& r, const Quat& rho) {
  Pose3 p;
  p.r = r;
  p.rho = rho;
  p.R = rho.toRotationMatrix();
  return p;
}

/// The pose moved by h along its coordinate i: 2D (x, y, theta); 3D (x, y, z, then a rotation
/// about body axis i - 3, on the manifold: rho exp(h e_{i-3})).
inline Pose2 movedPose(Pose2 b, int i, double h) {
  if (i < 2)
    b.r(i) += h;
  else
    b = makePose(b.r, b.theta + h);
  return b;
}
inline Pose3 movedPose(Pose3 b, int i, double h) {
  if (i < 3)
    b.r(i) += h;
  else
    b = makePose(b.r, boxPlus(b.rho, h * Vec3::Unit(i - 3)));
  return b;
}

/// The pose advanced by time h along the twist t with zero acceleration.
inline Pose2 advancedPose(const Pose2& b, const Twist2& t, double h) {
  return makePose(b.r + h * t.v, b.theta + h * t.w);
}
inline Pose3 advancedPose(const Pose3& b, const Twist3& t, double h) {
  return makePose(b.r + h * t.v, boxPlus(b.rho, h * t.w));
}

/// Two bodies' poses and twists.
template <typename Pose, typename Twist>
struct TwoBodies {
  static constexpr int kCoordinates = std::is_same_v<Pose, Pose2> ? 3 : 6;  ///< per body
  Pose b1, b2;
  Twist t1, t2;
};

/// What a joint kernel takes: two bodies, their marker frames, the joint's motion (and a distance
/// joint's length), multipliers and time.
template <typename Pose, typename Twist, typename Lambda>
struct JointCase : TwoBodies<Pose, Twist> {
  MarkerFrame f1, f2;
  JointMotion motion;
  TimeFunction length;  ///< distance joints only
  Lambda lambda;
  double t = 0.0;
};

/// The state with body coordinate k moved by h (k < kCoordinates: body 1, else body 2).
template <typename State>
State perturbed(const State& s, int k, double h) {
  constexpr int n = State::kCoordinates;
  State p = s;
  if (k < n)
    p.b1 = movedPose(p.b1, k, h);
  else
    p.b2 = movedPose(p.b2, k - n, h);
  return p;
}

/// The joint case advanced by time h along its twists with zero accelerations.
template <typename Case>
Case advanced(const Case& c, double h) {
  Case p = c;
  p.b1 = advancedPose(c.b1, c.t1, h);
  p.b2 = advancedPose(c.b2, c.t2, h);
  p.t = c.t + h;
  return p;
}

/// The two twists stacked: (v1, w1, v2, w2).
template <typename State>
Eigen::Matrix<double, 2 * State::kCoordinates, 1> twistVector(const State& s) {
  Eigen::Matrix<double, 2 * State::kCoordinates, 1> v;
  v << s.t1.v, s.t1.w, s.t2.v, s.t2.w;
  return v;
}

/// df/dq by central differences: column k is (f(s moved by +h along k) - f(... -h)) / 2h,
/// k over both bodies' coordinates; Matrix is f's size x 2 kCoordinates.
template <typename Matrix, typename State, typename F>
Matrix coordinateDerivative(const State& s, F&& f) {
  Matrix fd;
  for (int k = 0; k < 2 * State::kCoordinates; ++k)
    fd.col(k) = (f(perturbed(s, k, kFdStep)) - f(perturbed(s, k, -kFdStep))) / (2 * kFdStep);
  return fd;
}

/// df/dt at the joint case c by a central difference in its time alone.
template <typename Case, typename F>
auto timeDerivative(const Case& c, F&& f) {
  Case cp = c, cm = c;
  cp.t += kFdStep;
  cm.t -= kFdStep;
  using Result = std::decay_t<decltype(f(c))>;
  return Result((f(cp) - f(cm)) / (2 * kFdStep));
}

}  // namespace catena::test
