#pragma once
/// @file natural_mechanism.hpp
/// A NaturalModel (natural_model.hpp) as a mechanism of the Lagrangian facility
/// (docs/lagrangian-facility.md, docs/natural-coordinates.md): one function templated on the
/// scalar S gives L(q, q') = T - V and C(q), assembled part by part as in the paper's sec. 2.1
/// ("Assembly process"): positions and velocities of every PV and body frame (eqs. 4, 8-13),
/// body kinetic energy T = m/2 |M'|^2 + 1/2 w^T I w (eqs. 14-15), thin-rod springs, particles,
/// gravity, torques on explicit angles (eq. 33); C = rigidity and user dot constraints, then two
/// rows per explicit angle. The facility forms the DAE by AD.

#include <memory>
#include <vector>

#include "formulations/lagrangian/lagrangian_system.hpp"
#include "formulations/natural/natural_model.hpp"

namespace catena::natural {

template <class S>
using V3 = Eigen::Matrix<S, 3, 1>;

/// Every PV's WF position and velocity, every body's frame Q = [x, y, z], origin and rates.
template <class S>
struct NaturalKinematics {
  std::vector<V3<S>> x, xd;  ///< per PV
  std::vector<S> s, sd;      ///< per scalar coordinate
  struct Frame {
    V3<S> O, x, y, z, Od, xd, yd, zd;
  };
  std::vector<Frame> frames;  ///< per body
};

/// Positions and velocities at (q, qd) (any Eigen vectors of S with at least model.nq entries).
/// 2D models are embedded in the xy plane: y = e_z x x, z = e_z (sec. 2.3).
template <class S, class QIn>
void computeNaturalKinematics(const NaturalModel& m, const QIn& q, const QIn& qd,
                              NaturalKinematics<S>& k) {
  const S zero = q(0) * 0.0;  // a zero with the right derivative structure
  const auto lift = [&zero](const Vec3& v) { return V3<S>(zero + v(0), zero + v(1), zero + v(2)); };
  const int d = m.dimension;
  k.x.assign(m.pvs.size(), lift(Vec3::Zero()));
  k.xd.assign(m.pvs.size(), lift(Vec3::Zero()));
  k.s.assign(m.scalars.size(), zero);
  k.sd.assign(m.scalars.size(), zero);
  k.frames.resize(m.bodies.size());
  for (std::size_t i = 0; i < m.pvs.size(); ++i) {
    const Pv& pv = m.pvs[i];
    if (pv.source == PvSource::kFixed) k.x[i] = lift(pv.value);
    if (pv.source != PvSource::kCoordinate) continue;
    for (int c = 0; c < d; ++c) {
      k.x[i](c) = q(pv.offset + c);
      k.xd[i](c) = qd(pv.offset + c);
    }
  }
  for (std::size_t j = 0; j < m.scalars.size(); ++j) {
    k.s[j] = q(m.scalars[j].offset);
    k.sd[j] = qd(m.scalars[j].offset);
  }
  for (const EvalStep& step : m.order) {
    const std::size_t i = static_cast<std::size_t>(step.index);
    if (step.is_body) {
      const NaturalBody& b = m.bodies[i];
      auto& f = k.frames[i];
      const int nb = d == 3 ? 3 : 2;
      f.O = k.x[static_cast<std::size_t>(b.basis[0])];
      f.Od = k.xd[static_cast<std::size_t>(b.basis[0])];
      f.x = f.xd = f.y = f.yd = lift(Vec3::Zero());
      for (int c = 0; c < nb; ++c) {
        const std::size_t p = static_cast<std::size_t>(b.basis[c]);
        f.x += k.x[p] * (zero + b.U(c, 0));
        f.xd += k.xd[p] * (zero + b.U(c, 0));
        if (d == 3) {
          f.y += k.x[p] * (zero + b.U(c, 1));
          f.yd += k.xd[p] * (zero + b.U(c, 1));
        }
      }
      if (d == 3) {
        f.z = f.x.cross(f.y);
        f.zd = f.xd.cross(f.y) + f.x.cross(f.yd);
      } else {
        f.y = V3<S>(-f.x(1), f.x(0), zero);
        f.yd = V3<S>(-f.xd(1), f.xd(0), zero);
        f.z = lift(Vec3::UnitZ());
        f.zd = lift(Vec3::Zero());
      }
      continue;
    }
    const Pv& pv = m.pvs[i];
    if (pv.source == PvSource::kDependent) {
      const auto& f = k.frames[static_cast<std::size_t>(pv.body)];
      const S r0 = zero + pv.value(0), r1 = zero + pv.value(1), r2 = zero + pv.value(2);
      k.x[i] = f.x * r0 + f.y * r1 + f.z * r2;
      k.xd[i] = f.xd * r0 + f.yd * r1 + f.zd * r2;
      if (pv.kind == PvKind::kPoint) {
        k.x[i] += f.O;
        k.xd[i] += f.Od;
      }
    } else {  // assigned
      V3<S> x = lift(Vec3::Zero()), xd = lift(Vec3::Zero());
      for (const AssignTerm& t : pv.terms) {
        const std::size_t p = static_cast<std::size_t>(t.pv);
        const S c = zero + t.coefficient;
        if (t.scalar < 0) {
          x += k.x[p] * c;
          xd += k.xd[p] * c;
        } else {
          const std::size_t j = static_cast<std::size_t>(t.scalar);
          x += k.x[p] * (c * k.s[j]);
          xd += k.xd[p] * (c * k.s[j]) + k.x[p] * (c * k.sd[j]);
        }
      }
      k.x[i] = x;
      k.xd[i] = xd;
    }
  }
}

/// L = T - V and C (first model.nc entries of C written) at (q, qd).
template <class S, class QIn, class COut>
void evaluateNaturalMechanism(const NaturalModel& m, const QIn& q, const QIn& qd, S& L, COut& C) {
  using std::sqrt;
  NaturalKinematics<S> k;
  computeNaturalKinematics<S>(m, q, qd, k);
  const S zero = q(0) * 0.0;
  const V3<S> g(zero + m.gravity(0), zero + m.gravity(1), zero + m.gravity(2));
  S T = zero, V = zero;
  for (std::size_t b = 0; b < m.bodies.size(); ++b) {
    const NaturalBody& body = m.bodies[b];
    if (body.mass == 0.0 && body.inertia.isZero()) continue;
    const auto& f = k.frames[b];
    const S c0 = zero + body.centroid(0), c1 = zero + body.centroid(1),
            c2 = zero + body.centroid(2);
    const V3<S> M = f.O + f.x * c0 + f.y * c1 + f.z * c2;
    const V3<S> Md = f.Od + f.xd * c0 + f.yd * c1 + f.zd * c2;
    const V3<S> w(f.z.dot(f.yd), f.x.dot(f.zd), f.y.dot(f.xd));  // eq. (14)
    S wIw = zero;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        if (body.inertia(r, c) != 0.0) wIw += body.inertia(r, c) * w(r) * w(c);
    T += 0.5 * body.mass * Md.squaredNorm() + 0.5 * wIw;
    V -= body.mass * g.dot(M);
  }
  for (const NaturalSpring& sp : m.springs) {
    const V3<S>&A = k.x[static_cast<std::size_t>(sp.a)], &B = k.x[static_cast<std::size_t>(sp.b)];
    const V3<S>&Ad = k.xd[static_cast<std::size_t>(sp.a)],
          &Bd = k.xd[static_cast<std::size_t>(sp.b)];
    T += sp.mass / 6.0 * (Ad.squaredNorm() + Ad.dot(Bd) + Bd.squaredNorm());
    V -= 0.5 * sp.mass * g.dot(A + B);
    if (sp.stiffness != 0.0) {
      const S stretch = sqrt((B - A).squaredNorm()) - sp.length;
      V += 0.5 * sp.stiffness * stretch * stretch;
    }
  }
  for (const NaturalParticle& p : m.particles) {
    const std::size_t i = static_cast<std::size_t>(p.pv);
    T += 0.5 * p.mass * k.xd[i].squaredNorm();
    V -= p.mass * g.dot(k.x[i]);
  }
  for (const NaturalAngle& a : m.angles)  // eq. (33)
    V -= a.torque * k.s[static_cast<std::size_t>(a.scalar)];
  L = T - V;
  for (std::size_t i = 0; i < m.constraints.size(); ++i) {
    const DotConstraint& c = m.constraints[i];
    auto diff = [&k](Index x0, Index x1) {
      V3<S> r = k.x[static_cast<std::size_t>(x0)];
      if (x1 >= 0) r -= k.x[static_cast<std::size_t>(x1)];
      return r;
    };
    C(static_cast<Index>(i)) = diff(c.a0, c.a1).dot(diff(c.b0, c.b1)) - c.value;
  }
  // Explicit angles: x_body = cos(theta) x_ref + sin(theta) y_ref (2 rows each).
  Index row = static_cast<Index>(m.constraints.size());
  for (const NaturalAngle& a : m.angles) {
    using std::cos;
    using std::sin;
    const S th = k.s[static_cast<std::size_t>(a.scalar)];
    V3<S> xr(zero + 1.0, zero, zero), yr(zero, zero + 1.0, zero);
    if (a.reference >= 0) {
      xr = k.frames[static_cast<std::size_t>(a.reference)].x;
      yr = k.frames[static_cast<std::size_t>(a.reference)].y;
    }
    const V3<S>& x = k.frames[static_cast<std::size_t>(a.body)].x;
    C(row++) = x(0) - (xr(0) * cos(th) + yr(0) * sin(th));
    C(row++) = x(1) - (xr(1) * cos(th) + yr(1) * sin(th));
  }
}

/// Largest nq evaluated by the facility's fixed-size nested AD (padded to 4, 8 or 12
/// coordinates; no heap allocation; cheaper than the dynamic path below, measured in
/// docs/natural-coordinates.md, "Limits and not done"). Not a size limit: larger models take
/// the dynamic path (nested fixed-size objects pass Eigen's 128 KiB limit from nq = 16 on).
inline constexpr Index kMaxPaddedNaturalCoordinates = 12;

/// The model as a LagrangianSystem: the facility's fixed-size AD padded to the next of 4, 8, 12
/// coordinates if model.nq <= kMaxPaddedNaturalCoordinates, else
/// makeNaturalLagrangianSystemDynamic. Any size; throws catena::Error if model.nq < 1.
lagrangian::LagrangianSystem makeNaturalLagrangianSystem(std::shared_ptr<const NaturalModel> model);

/// The model as a LagrangianSystem by dynamic-size AD, for any nq: first order by one forward
/// sweep with 2 nq directions (AutoDiffScalar<VectorXd>); second order by forward over forward
/// with an inner one-direction dual number and an outer dynamic gradient, one sweep per Hessian
/// column (nq sweeps over 2 nq directions, nq over nq). The evaluators allocate (heap derivative
/// vectors). makeNaturalLagrangianSystem uses it above kMaxPaddedNaturalCoordinates; it is
/// public for that and for checking it against the padded path on small models.
lagrangian::LagrangianSystem makeNaturalLagrangianSystemDynamic(
    std::shared_ptr<const NaturalModel> model);

/// C (nc) and C_q (nc x nq) at q for any size (dynamic first-order AD, v not needed): kinematics
/// checks such as the closed-chain robot's (nq = 18).
void computeNaturalConstraints(const NaturalModel& model, const VecX& q, VecX& C, MatX& C_q);

/// Positions of every PV at q (plain doubles).
std::vector<Vec3> computeNaturalPositions(const NaturalModel& model, const VecX& q);

}  // namespace catena::natural
