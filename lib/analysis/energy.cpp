#include "analysis/energy.hpp"

#include <cmath>
#include <sstream>

#include "kernels/body.hpp"
#include "kernels/pose.hpp"

namespace catena {

Vec3 centreOfMass(const Model& m, const VecX& q, Index b) {
  const Body& body = m.bodies[b];
  if (m.dimension == 2) {
    const Pose2 p = pose2(q.data() + m.qOffset(b));
    const Vec2 c = p.r + p.R * body.com.head<2>();
    return Vec3(c.x(), c.y(), 0.0);
  }
  const Pose3 p = pose3(q.data() + m.qOffset(b));
  return p.r + p.R * body.com;
}

namespace {

/// Relative rotation of F1 in F2: the rotation vector (3D) or the angle in z (2D).
Vec3 relativeRotation(const Model& m, const VecX& q, Index k1, Index k2) {
  const Marker &a = m.markers[k1], &b = m.markers[k2];
  if (m.dimension == 2) {
    auto angle = [&](const Marker& k) {
      const double body = k.body == kGround ? 0.0 : q(m.qOffset(k.body) + 2);
      return body + markerFrame(k).angle;
    };
    return Vec3(0.0, 0.0, angle(a) - angle(b));
  }
  auto orientation = [&](const Marker& k) {
    return bodyPose3(m, q.data(), k.body).rho * k.orientation;
  };
  return quatLog(orientation(b).conjugate() * orientation(a));
}

}  // namespace

Energy computeEnergy(const Model& m, const AssemblyPlan& /*plan*/, const State& s) {
  Energy e;
  // Body by body, without the mass matrix: generalized-alpha watches the energy at every step.
  for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b) {
    const Body& body = m.bodies[b];
    const Index vo = m.vOffset(b);
    if (m.dimension == 3) {
      const Vec6 v = s.v.segment<6>(vo);
      e.kinetic += 0.5 * v.dot(computeBodyMassTimes3(body, pose3(s.q.data() + m.qOffset(b)).R, v));
    } else {
      const Vec3 v = s.v.segment<3>(vo);
      e.kinetic += 0.5 * v.dot(computeBodyMass2(body, pose2(s.q.data() + m.qOffset(b)).R) * v);
    }
    e.gravity -= body.mass * m.gravity.dot(centreOfMass(m, s.q, b));
  }
  for (const SpringDamper& k : m.springs) {
    const double L =
        (markerPosition(m, s.q.data(), k.marker1) - markerPosition(m, s.q.data(), k.marker2))
            .norm();
    e.springs += 0.5 * k.stiffness * (L - k.rest_length) * (L - k.rest_length) + k.preload * L;
  }
  for (const RotationalSpringDamper& k : m.rotational_springs) {
    Vec3 theta = relativeRotation(m, s.q, k.marker1, k.marker2);
    if (m.dimension == 2) theta.z() -= k.rest_angle;
    e.springs += 0.5 * k.stiffness * theta.squaredNorm();
  }
  return e;
}

EnergyChange judgeEnergyChange(double e0, double e1, double kinetic, double limit) {
  EnergyChange out;
  std::ostringstream os;
  if (!std::isfinite(e0) || !std::isfinite(e1)) {
    os << "from " << e0 << " J to " << e1 << " J";
    out.suspicious = true;
    out.description = os.str();
    return out;
  }
  const double change = std::abs(e1 - e0), size = std::abs(e0) + std::abs(e1);
  if (change <= 1e-10 * size) return out;  // round-off of the totals
  if (kinetic > 1e-8 * size) {
    out.suspicious = change > limit * kinetic;
    os << "by " << 100.0 * change / kinetic << " % of the largest kinetic energy (" << kinetic
       << " J)";
  } else {
    out.suspicious = true;
    os << "by " << e1 - e0 << " J (from " << e0 << " J to " << e1
       << " J); no relative size is given because the largest kinetic energy, " << kinetic
       << " J, is too small to measure it against (the mechanism hardly moved)";
  }
  out.description = os.str();
  return out;
}

bool isConservative(const Model& m) {
  for (const SpringDamper& k : m.springs)
    if (k.damping != 0.0) return false;
  for (const RotationalSpringDamper& k : m.rotational_springs)
    if (k.damping != 0.0) return false;
  for (const Joint& j : m.joints)
    if (j.motion.active) return false;
  return m.loads.empty();
}

}  // namespace catena
