/// @file mcs_test.cpp
/// The minimal-coordinate-set integrator (integrators/mcs_dynamics.hpp) on the examples of the
/// projection-continuation paper and the QRCP paper, each against an independent reference:
/// - planar pendulum with one and with a duplicated distance constraint (m = n, rank n - 1):
///   the continued T never changes sign over many revolutions, the traditional one flips where
///   the factorization does (counted independently against the physical tangent); the motion
///   against the ARKODE reference ODE in the angle;
/// - spatial pendulum (paper 1 sec. 3.3): q'(0) = (|v0|, 0) with the aligned first basis, T
///   continuous (it changes no more than its subspace does), the mass's path against IDA (GGL)
///   and the spherical-coordinates reference ODE;
/// - spatial slider-crank and spin top: positions against IDA (GGL) at tight tolerance, q'
///   continuous with continuation;
/// - the four-bar family of the QRCP paper: singular configurations found where the cranks pass
///   horizontal (from the trajectory itself), the right number of vanishing pivots, and the
///   continued motion continuous across them.
/// Tolerances: MCS and IDA both run at rtol 1e-10; their global errors over these runs are a few
/// 1e-8 of the motion's size (the IDA notes in docs/dynamics-ida.md measure 6e-7 relative at
/// rtol 1e-8 for GGL), so the agreement is asserted at 1e-6 of the motion's size.
#define BOOST_TEST_MODULE mcs
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/energy.hpp"
#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "driven_chain.hpp"
#include "integrators/ida_dynamics.hpp"
#include "integrators/initial_state.hpp"
#include "integrators/mcs_dynamics.hpp"
#include "io/yaml_loader.hpp"
#include "kernels/pose.hpp"
#include "model/model_builder.hpp"
#include "petsc_fixture.hpp"
#include "reference_odes.hpp"

using namespace catena;

namespace {

struct Output {
  State state;
  McsSample sample;
};

struct Run {
  McsResult result;
  std::vector<Output> out;
};

Run runMcs(const Model& m, const McsOptions& o) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  Run run;
  run.result = integrateMcs(m, plan, initialState(m), o, [&](const State& s, const McsSample& x) {
    run.out.push_back({s, x});
    return true;
  });
  BOOST_REQUIRE_MESSAGE(run.result.dynamics.status.ok(), run.result.dynamics.status.message);
  return run;
}

McsOptions tight(double t_end, double output_interval, bool continuation) {
  McsOptions o;
  o.t_end = t_end;
  o.output_interval = output_interval;
  o.rtol = 1e-10;
  o.atol = 1e-12;
  o.continuation = continuation;
  return o;
}

std::vector<State> runIda(const Model& m, double t_end, double output_interval) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  IdaOptions o;
  o.t_end = t_end;
  o.output_interval = output_interval;
  // The reference, two orders tighter than the MCS runs: at rtol 1e-10 IDA's own error on the
  // spatial slider-crank's rotations is 4e-7 to 1.5e-6 rad over 2 s (rtol 0.8e-10..1.2e-10,
  // against rtol 1e-12; 2.5e-9 rad at 1e-12; hand runs of catena simulate), which round-off
  // in the Newton solves moves within that range.
  o.rtol = 1e-12;
  o.atol = 1e-14;
  std::vector<State> out;
  const DynamicsResult r = integrateIda(m, plan, initialState(m), o, [&](const State& s) {
    out.push_back(s);
    return true;
  });
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  return out;
}

Model load(const std::string& name) {
  return loadMechanismFile(std::string(CATENA_SOURCE_DIR) + "/inputs/" + name + ".yaml").model;
}

/// Planar point mass (x, y) at distance l from the origin, its rotation locked to the ground;
/// `copies` identical distance joints (2: the QRCP paper's duplicated constraint, m = n = 3,
/// rank 2). Starts at the bottom moving at v0 along +x (gravity -y).
Model planarPendulum(double l, double v0, int copies) {
  ModelBuilder b(2, copies == 1 ? "planar_pendulum" : "planar_pendulum_duplicated");
  b.setGravity(Vec3(0, -9.81, 0));
  Body bob;
  bob.name = "bob";
  bob.mass = 1.0;  // point mass: inertia zero, rotation locked below
  bob.position = Vec3(0, -l, 0);
  bob.velocity = Vec3(v0, 0, 0);
  const Index body = b.addBody(bob);
  Marker mb, mg;
  mb.name = "bob/o";
  mb.body = body;
  mg.name = "ground/o";
  mg.body = kGround;
  const Index i1 = b.addMarker(mb), i2 = b.addMarker(mg);
  Joint lock;
  lock.name = "no_spin";
  lock.type = JointType::kLock;
  lock.mask = 0b100;  // theta only
  lock.marker1 = i1;
  lock.marker2 = i2;
  b.addJoint(lock);
  for (int k = 0; k < copies; ++k) {
    Joint rod;
    rod.name = "rod_" + std::to_string(k);
    rod.type = JointType::kDistance;
    rod.length = TimeFunction::constant(l);
    rod.marker1 = i1;
    rod.marker2 = i2;
    b.addJoint(rod);
  }
  return b.finalize();
}

/// The change of the tangent subspace between two bases, |(I - T_b T_b^T) T_a|_F (the sines of
/// the principal angles): independent of the bases chosen.
double subspaceChange(const MatX& Ta, const MatX& Tb) {
  return (Ta - Tb * (Tb.transpose() * Ta)).norm();
}

/// max over consecutive outputs of |dq'| - (|dv| + s^2 |q'|), s the subspace change: with the
/// continued basis, q' = T^T v changes by T_b^T dv plus (T_b^T T_a - I) q'_a (scleronomic
/// v_a = T_a q'_a), and the Procrustes step makes T_b^T T_a symmetric with eigenvalues the
/// cosines of the principal angles, so that term is below s^2 / 2 |q'|. <= 0 means q' is as
/// continuous as v itself; a flip of T makes it ~2 |q'|, a re-mixed basis ~|q'|.
double qdotExcess(const std::vector<Output>& out) {
  double worst = -1e300;
  for (std::size_t k = 1; k < out.size(); ++k) {
    const McsSample &a = out[k - 1].sample, &b = out[k].sample;
    const double dq = (b.qdot - a.qdot).norm(), dv = (out[k].state.v - out[k - 1].state.v).norm();
    const double s = subspaceChange(a.T, b.T);
    worst = std::max(worst, dq - (dv + s * s * a.qdot.norm()));
  }
  return worst;
}

/// max over consecutive outputs of |T_b - T_a|_F - (s + s^2), s = |(I - T_b T_b^T) T_a|_F the
/// change of the tangent subspace itself: <= 0 means T turned no more than its subspace did.
double basisExcess(const std::vector<Output>& out) {
  double worst = -1e300;
  for (std::size_t k = 1; k < out.size(); ++k) {
    const MatX &Ta = out[k - 1].sample.T, &Tb = out[k].sample.T;
    const double s = subspaceChange(Ta, Tb);
    worst = std::max(worst, (Tb - Ta).norm() - (s + s * s));
  }
  return worst;
}

}  // namespace

BOOST_AUTO_TEST_CASE(planar_pendulum_sign_of_T_over_many_revolutions) {
  const double l = 1.0, v0 = 7.0, t_end = 10.0;  // 7 m/s > 2 sqrt(g l): it goes round
  for (int copies : {1, 2}) {
    const Model m = planarPendulum(l, v0, copies);
    long flips[2] = {0, 0}, sign_changes[2] = {0, 0};
    std::vector<Output> outs[2];
    for (int mode = 0; mode < 2; ++mode) {
      Run run = runMcs(m, tight(t_end, 0.0, mode == 1));  // every step is an output
      BOOST_TEST(run.result.rank == 2);  // the lock and one distance row; the copy is redundant
      BOOST_TEST(run.result.dof == 1);
      flips[mode] = run.result.mcs.flips;
      // Independent count: changes of sign of T against the physical tangent (-y, x) / l.
      double sign = 0.0;
      for (const Output& o : run.out) {
        const Vec2 t(-o.state.q(1) / l, o.state.q(0) / l);
        const double s = o.sample.T.col(0).head<2>().dot(t) > 0.0 ? 1.0 : -1.0;
        if (sign != 0.0 && s != sign) ++sign_changes[mode];
        sign = s;
      }
      outs[mode] = std::move(run.out);
    }
    // Revolutions, from the unwrapped angle of the continuation run.
    double angle = 0.0, previous = std::atan2(outs[1][0].state.q(0), -outs[1][0].state.q(1));
    std::vector<double> times;
    for (const Output& o : outs[1]) {
      const double a = std::atan2(o.state.q(0), -o.state.q(1));
      angle += std::remainder(a - previous, 2.0 * M_PI);
      previous = a;
      times.push_back(o.state.t);
    }
    BOOST_TEST_MESSAGE("planar pendulum, "
                       << copies << " distance constraint(s), " << angle / (2.0 * M_PI)
                       << " revolutions in " << t_end << " s: T flips, traditional " << flips[0]
                       << " (sign changes against the physical tangent " << sign_changes[0]
                       << "), continuation " << flips[1] << " (" << sign_changes[1] << ")");
    BOOST_TEST(angle / (2.0 * M_PI) > 5.0);
    BOOST_TEST(flips[1] == 0);
    BOOST_TEST(sign_changes[1] == 0);
    // Householder QR flips T wherever it flips against the continuous tangent, and it does so
    // on this motion (twice a revolution); the counter reports exactly those flips.
    BOOST_TEST(flips[0] == sign_changes[0]);
    BOOST_TEST(sign_changes[0] > 0);
    // The angle against the reference ODE theta'' = -(g/l) sin theta (ARKODE, 8th order).
    const reference::PlanarPendulumSolution ref =
        reference::planarPendulum(l, 9.81, 0.0, v0 / l, times);
    double worst = 0.0, unwrapped = 0.0;
    previous = 0.0;
    for (std::size_t k = 0; k < outs[1].size(); ++k) {
      const double a = std::atan2(outs[1][k].state.q(0), -outs[1][k].state.q(1));
      unwrapped += std::remainder(a - previous, 2.0 * M_PI);
      previous = a;
      worst = std::max(worst, std::abs(unwrapped - ref.theta(k)));
    }
    BOOST_TEST_MESSAGE("  angle against the reference ODE: max error " << worst << " rad");
    BOOST_TEST(worst < 1e-6);
    // Traditional and continuation integrate the same motion: only the basis differs.
    double apart = 0.0;
    const std::size_t common = std::min(outs[0].size(), outs[1].size());
    for (std::size_t k = 0; k < common; ++k)
      if (std::abs(outs[0][k].state.t - outs[1][k].state.t) < 1e-12)
        apart = std::max(apart, (outs[0][k].state.q - outs[1][k].state.q).norm());
    BOOST_TEST_MESSAGE("  traditional vs continuation positions: " << apart << " m");
    BOOST_TEST(apart < 1e-8);
  }
}

BOOST_AUTO_TEST_CASE(spatial_pendulum_of_the_projection_paper) {
  const Model m = load("spatial_pendulum");
  const double t_end = 1.0, dt = 1e-3;  // the paper's h
  McsOptions o = tight(t_end, dt, true);
  o.align_initial_basis = true;
  const Run cont = runMcs(m, o);
  o.continuation = false;
  const Run trad = runMcs(m, o);
  BOOST_REQUIRE(cont.result.dof == 2);
  // Paper: q1'(0) = v0, q2'(0) = 0. In catena's mixed basis v also holds the body's angular
  // velocity, so the first minimal velocity is |v(0)|.
  const VecX& qd0 = cont.out.front().sample.qdot;
  const double speed0 = cont.out.front().state.v.norm();
  BOOST_TEST_MESSAGE("spatial pendulum: q'(0) = ("
                     << qd0(0) << ", " << qd0(1) << "), |v(0)| = " << speed0 << " (translation "
                     << cont.out.front().state.v.head<3>().norm() << " m/s)");
  BOOST_TEST(std::abs(qd0(0) - speed0) < 1e-12 * speed0);
  BOOST_TEST(std::abs(qd0(1)) < 1e-12 * speed0);
  // The columns of T are continuous with continuation: they turn no more than the subspace.
  const double excess_cont = basisExcess(cont.out), excess_trad = basisExcess(trad.out);
  BOOST_TEST_MESSAGE("  |dT| beyond the subspace change: continuation "
                     << excess_cont << ", traditional " << excess_trad << "; flips "
                     << cont.result.mcs.flips << " / " << trad.result.mcs.flips);
  BOOST_TEST(excess_cont < 1e-9);
  BOOST_TEST(cont.result.mcs.flips == 0);
  // The mass's path against IDA (GGL) and the spherical-coordinates reference ODE.
  const std::vector<State> ida = runIda(m, t_end, dt);
  BOOST_REQUIRE_EQUAL(ida.size(), cont.out.size());
  std::vector<double> times;
  for (const Output& x : cont.out) times.push_back(x.state.t);
  const reference::SphericalPendulumSolution ref = reference::sphericalPendulum(
      1.0, 0.08, 9.81, Eigen::Vector3d(0.08, 0, 0), Eigen::Vector3d(0, 0.7895, 0), times);
  double to_ida = 0.0, to_ref = 0.0, between_modes = 0.0;
  for (std::size_t k = 0; k < cont.out.size(); ++k) {
    const Vec3 r = cont.out[k].state.q.head<3>();
    to_ida = std::max(to_ida, (r - ida[k].q.head<3>()).norm());
    to_ref = std::max(to_ref, (r - ref.r.col(static_cast<Eigen::Index>(k))).norm());
    between_modes = std::max(between_modes, (r - trad.out[k].state.q.head<3>()).norm());
  }
  BOOST_TEST_MESSAGE("  mass position: to IDA " << to_ida << " m, to the reference ODE " << to_ref
                                                << " m, traditional vs continuation "
                                                << between_modes << " m (l = 0.08 m)");
  BOOST_TEST(to_ref < 1e-6 * 0.08);
  BOOST_TEST(to_ida < 1e-6 * 0.08);
  BOOST_TEST(between_modes < 1e-6 * 0.08);
}

BOOST_AUTO_TEST_CASE(slider_crank_and_spin_top_against_ida) {
  struct Case {
    const char* file;
    double t_end;
  };
  for (const Case& c : {Case{"spatial_slider_crank", 2.0}, Case{"spin_top", 5.0}}) {
    const Model m = load(c.file);
    const AssemblyPlan plan = buildAssemblyPlan(m);
    const double dt = 0.01;
    const Run cont = runMcs(m, tight(c.t_end, dt, true));
    const Run trad = runMcs(m, tight(c.t_end, dt, false));
    const std::vector<State> ida = runIda(m, c.t_end, dt);
    BOOST_REQUIRE_EQUAL(ida.size(), cont.out.size());
    // Positions of every body origin and the rotation between the orientations.
    double position = 0.0, rotation = 0.0, size = 0.0, energy = 0.0;
    const double e0 = computeEnergy(m, plan, cont.out.front().state).total();
    const double kinetic = computeEnergy(m, plan, cont.out.front().state).kinetic;
    for (std::size_t k = 0; k < ida.size(); ++k) {
      const State& s = cont.out[k].state;
      for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b) {
        const Index i = m.qOffset(b);
        position = std::max(position, (s.q.segment<3>(i) - ida[k].q.segment<3>(i)).norm());
        size = std::max(size, (s.q.segment<3>(i) - cont.out.front().state.q.segment<3>(i)).norm());
        const Quat a(s.q(i + 3), s.q(i + 4), s.q(i + 5), s.q(i + 6));
        const Quat bq(ida[k].q(i + 3), ida[k].q(i + 4), ida[k].q(i + 5), ida[k].q(i + 6));
        rotation = std::max(rotation, a.angularDistance(bq.normalized()));
      }
      energy = std::max(energy, std::abs(computeEnergy(m, plan, s).total() - e0) / kinetic);
    }
    const double excess = qdotExcess(cont.out), excess_trad = qdotExcess(trad.out);
    BOOST_TEST_MESSAGE(c.file << ", " << c.t_end << " s: to IDA " << position << " m (motion "
                              << size << " m), " << rotation << " rad; energy error " << energy
                              << "; steps " << cont.result.dynamics.stats.steps << ", RHS "
                              << cont.result.mcs.rhs_evaluations << "; flips continuation "
                              << cont.result.mcs.flips << ", traditional " << trad.result.mcs.flips
                              << "; q' jump beyond |dv|: " << excess << " (traditional "
                              << excess_trad << ")");
    BOOST_TEST(position < 1e-6 * size);
    BOOST_TEST(rotation < 1e-6);
    BOOST_TEST(energy < 1e-7);
    BOOST_TEST(cont.result.mcs.flips == 0);
    BOOST_TEST(excess < 1e-9);
  }
}

BOOST_AUTO_TEST_CASE(four_bar_family_singular_configurations) {
  struct Case {
    const char* file;
    Index rank, drop;  ///< QRCP paper: generic rank and its drop when a level is horizontal
    int levels;
  };
  const double t_end = 1.7, dt = 1e-3;
  for (const Case& c :
       {Case{"double_four_bar", 14, 2, 1}, Case{"modified_double_four_bar", 11, 1, 1},
        Case{"modified_triple_four_bar", 14, 1, 1}, Case{"modified_2x2_four_bar", 22, 1, 2}}) {
    const Model m = load(c.file);
    const Run cont = runMcs(m, tight(t_end, dt, true));
    const Run trad = runMcs(m, tight(t_end, dt, false));
    BOOST_TEST(cont.result.rank == c.rank, c.file);
    // The closed form of the singular times: the cranks of a level pass horizontal
    // (sin(theta) = 0), located on the output grid by a cubic Hermite interpolant of the first
    // crank's angle with theta' from v (error ~ dt^4 theta'''' / 384: ~1e-12 rad here).
    std::vector<double> crossings;
    for (int level = 0; level < c.levels; ++level) {
      const Index b = m.findBody("crank_" + std::to_string(level) + "_0");
      const Index i = m.qOffset(b) + 2;  // theta (2D: q and v coordinates coincide)
      for (std::size_t k = 1; k < cont.out.size(); ++k) {
        const State &a = cont.out[k - 1].state, &z = cont.out[k].state;
        const double h = z.t - a.t;
        auto theta = [&](double x) {  // x in [0, 1]
          const double h00 = 2 * x * x * x - 3 * x * x + 1, h10 = x * x * x - 2 * x * x + x,
                       h01 = -2 * x * x * x + 3 * x * x, h11 = x * x * x - x * x;
          return h00 * a.q(i) + h10 * h * a.v(i) + h01 * z.q(i) + h11 * h * z.v(i);
        };
        if (std::sin(theta(0.0)) * std::sin(theta(1.0)) > 0.0) continue;
        double lo = 0.0, hi = 1.0;
        for (int it = 0; it < 100; ++it) {
          const double mid = 0.5 * (lo + hi);
          (std::sin(theta(lo)) * std::sin(theta(mid)) <= 0.0 ? hi : lo) = mid;
        }
        crossings.push_back(a.t + 0.5 * (lo + hi) * h);
      }
    }
    std::sort(crossings.begin(), crossings.end());
    // Against independent values, not catena's own: the double four-bar's parallelogram motion
    // by energy in closed form, the 2x2's from the independent 2-DOF model of inputs/README.md.
    const std::vector<double> independent = c.file == std::string("double_four_bar")
                                                ? reference::doubleFourBarHorizontalTimes()
                                            : c.file == std::string("modified_2x2_four_bar")
                                                ? std::vector<double>{0.724, 0.907, 1.416, 1.545}
                                                : std::vector<double>{};
    const double independent_tol = c.file == std::string("double_four_bar") ? 1e-7 : 6e-4;
    if (!independent.empty()) {
      BOOST_REQUIRE_EQUAL(crossings.size(), independent.size());
      for (std::size_t k = 0; k < independent.size(); ++k)
        BOOST_TEST(std::abs(crossings[k] - independent[k]) <= independent_tol,
                   c.file << " crossing " << k << ": " << crossings[k] << " s against "
                          << independent[k] << " s");
    }
    const std::vector<SingularEvent>& events = cont.result.singular_events;
    BOOST_TEST_MESSAGE(c.file << ": rank " << cont.result.rank << ", " << events.size()
                              << " singular configurations, " << crossings.size()
                              << " horizontal crossings; flips continuation "
                              << cont.result.mcs.flips << ", traditional "
                              << trad.result.mcs.flips);
    BOOST_REQUIRE_EQUAL(events.size(), crossings.size());
    BOOST_TEST(crossings.size() >= 2u);
    for (std::size_t k = 0; k < events.size(); ++k) {
      const SingularEvent& e = events[k];
      BOOST_TEST_MESSAGE("  t = " << e.t << " s (crossing " << crossings[k] << " s, difference "
                                  << e.t - crossings[k] << " s), margin " << e.margin
                                  << " (at a step end " << e.sampled_margin << "), vanished "
                                  << e.vanished.size() << ", |q'| continued "
                                  << e.qdot_continued.norm() << ", new " << e.qdot_new.norm()
                                  << ", cosines " << e.cosines.transpose());
      // Both times come from cubic Hermite interpolants of the same trajectory (steps of a few
      // ms at rtol 1e-10, outputs every ms): they agree to ~1e-9 s.
      BOOST_TEST(std::abs(e.t - crossings[k]) < 1e-7);
      BOOST_TEST(e.vanished.size() == static_cast<std::size_t>(c.drop));
      BOOST_TEST(e.new_motions.cols() == c.drop);
      BOOST_TEST(e.margin < 1e-10);
      // The continued motion carries the velocity through the singular configuration: the
      // new motions get only the error of v's linear interpolation to t (h^2 |v''| / 8
      // relative, < 1e-3 with these steps).
      BOOST_TEST(e.cosines.minCoeff() > 0.999);
      BOOST_TEST(e.qdot_new.norm() < 1e-3 * e.qdot_continued.norm());
      BOOST_TEST((e.new_motions.transpose() * e.continued).cwiseAbs().maxCoeff() < 1e-12);
    }
    // Continuous across the singular configurations: no flip, T turns no more than its
    // subspace, q' as continuous as v.
    BOOST_TEST(cont.result.mcs.flips == 0);
    BOOST_TEST(basisExcess(cont.out) < 1e-9);
    BOOST_TEST(qdotExcess(cont.out) < 1e-9);
    // The same trajectory in both modes.
    double apart = 0.0;
    for (std::size_t k = 0; k < std::min(cont.out.size(), trad.out.size()); ++k)
      apart = std::max(apart, (cont.out[k].state.q - trad.out[k].state.q).cwiseAbs().maxCoeff());
    BOOST_TEST(apart < 1e-7);
  }
}

BOOST_AUTO_TEST_CASE(rheonomic_chain_against_ida) {
  // Two bodies hanging from the ground, the first on a driven revolute (0.5 sin(2 pi 0.7 t)
  // about x), the second on a free revolute: C_t and gamma carry the drive (p', p'', eqs. 11,
  // 14), and the driven joint does work, so energy is no witness here; IDA (GGL) is.
  const Model m = test::drivenChain(3);
  const Index a = m.findBody("a"), c = m.findBody("c");
  const double t_end = 2.0, dt = 0.01;
  const Run cont = runMcs(m, tight(t_end, dt, true));
  const std::vector<State> ida = runIda(m, t_end, dt);
  BOOST_REQUIRE_EQUAL(ida.size(), cont.out.size());
  BOOST_TEST(cont.result.dof == 1);
  double position = 0.0, size = 0.0;
  for (std::size_t k = 0; k < ida.size(); ++k)
    for (Index body_index : {a, c}) {
      const Index i = m.qOffset(body_index);
      const Vec3 r = cont.out[k].state.q.segment<3>(i);
      position = std::max(position, (r - ida[k].q.segment<3>(i)).norm());
      size = std::max(size, (r - cont.out.front().state.q.segment<3>(i)).norm());
    }
  BOOST_TEST_MESSAGE("driven chain, " << t_end << " s: to IDA " << position << " m (motion " << size
                                      << " m), flips " << cont.result.mcs.flips);
  BOOST_TEST(size > 0.1);
  BOOST_TEST(position < 1e-6 * size);
  BOOST_TEST(cont.result.mcs.flips == 0);
}

BOOST_AUTO_TEST_CASE(refuses_models_too_large_for_dense_qr) {
  const Model m = load("spatial_slider_crank");
  const AssemblyPlan plan = buildAssemblyPlan(m);
  McsOptions o;
  o.max_coordinates = 12;  // the slider-crank has 18
  BOOST_CHECK_THROW(integrateMcs(m, plan, initialState(m), o, nullptr), Error);
}
