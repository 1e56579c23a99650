#include "model/state.hpp"

#include "math/rotation.hpp"

namespace catena {

State initialState(const Model& model) {
  State s;
  s.q.resize(model.nq);
  s.v.resize(model.nv);
  s.lambda = VecX::Zero(model.nc);
  for (std::size_t i = 0; i < model.bodies.size(); ++i) {
    const Body& b = model.bodies[i];
    double* q = s.q.data() + model.qOffset(static_cast<Index>(i));
    double* v = s.v.data() + model.vOffset(static_cast<Index>(i));
    if (model.dimension == 3) {
      q[0] = b.position.x();
      q[1] = b.position.y();
      q[2] = b.position.z();
      q[3] = b.orientation.w();
      q[4] = b.orientation.x();
      q[5] = b.orientation.y();
      q[6] = b.orientation.z();
      for (int k = 0; k < 3; ++k) {
        v[k] = b.velocity(k);
        v[3 + k] = b.angular_velocity(k);
      }
    } else {
      q[0] = b.position.x();
      q[1] = b.position.y();
      q[2] = 2.0 * std::atan2(b.orientation.z(), b.orientation.w());
      v[0] = b.velocity.x();
      v[1] = b.velocity.y();
      v[2] = b.angular_velocity.z();
    }
  }
  return s;
}

void applyVariation(const Model& model, const VecX& dq, double scale, VecX& q) {
  const Index nb = static_cast<Index>(model.bodies.size());
  for (Index i = 0; i < nb; ++i) {
    double* qi = q.data() + model.qOffset(i);
    const double* di = dq.data() + model.vOffset(i);
    if (model.dimension == 3) {
      for (int k = 0; k < 3; ++k) qi[k] += scale * di[k];
      const Quat rho(qi[3], qi[4], qi[5], qi[6]);
      const Quat r = boxPlus(rho, scale * Vec3(di[3], di[4], di[5])).normalized();
      qi[3] = r.w();
      qi[4] = r.x();
      qi[5] = r.y();
      qi[6] = r.z();
    } else {
      for (int k = 0; k < 3; ++k) qi[k] += scale * di[k];
    }
  }
}

void normalizeQuaternions(const Model& m, VecX& q) {
  if (m.dimension != 3) return;
  for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b) {
    auto rho = q.segment<4>(m.qOffset(b) + 3);
    rho /= rho.norm();
  }
}

void positionRates(const Model& m, const double* q, const VecX& v, double* qdot) {
  for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b) {
    const double* qb = q + m.qOffset(b);
    const double* vb = v.data() + m.vOffset(b);
    double* db = qdot + m.qOffset(b);
    if (m.dimension == 3) {
      for (int k = 0; k < 3; ++k) db[k] = vb[k];
      const double s = qb[3];
      const Vec3 x(qb[4], qb[5], qb[6]), w(vb[3], vb[4], vb[5]);
      const Vec3 d = 0.5 * (s * w + x.cross(w));
      db[3] = -0.5 * x.dot(w);
      db[4] = d.x();
      db[5] = d.y();
      db[6] = d.z();
    } else {
      for (int k = 0; k < 3; ++k) db[k] = vb[k];
    }
  }
}

}  // namespace catena
