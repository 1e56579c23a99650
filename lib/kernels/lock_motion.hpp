#pragma once
/// @file lock_motion.hpp
/// The part of a prescribed lock motion that the planar and the spatial kernels share.

#include "model/model.hpp"

namespace catena {

/// Writes the first N translation functions of `motion` at time t (value m, rate m/s,
/// acceleration m/s^2) into m.rt, m.rt_dot, m.rt_ddot, and returns the angle function at t
/// (rad, rad/s, rad/s^2). N = 2 for LockMotion2, 3 for LockMotion3.
template <int N, typename LockMotion>
TimeValue evaluateTranslationAndAngle(const JointMotion& motion, double t, LockMotion& m) {
  for (int i = 0; i < N; ++i) {
    const TimeValue v = motion.translation[i].evaluate(t);
    m.rt(i) = v.value;
    m.rt_dot(i) = v.rate;
    m.rt_ddot(i) = v.accel;
  }
  return motion.angle.evaluate(t);
}

}  // namespace catena
