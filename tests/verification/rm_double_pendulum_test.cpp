#define BOOST_TEST_MODULE rm_double_pendulum
// The rotation-matrix paper's double pendulum (two bars 0.108 kg, 0.20 x 0.02 x 0.01 m, spherical
// joints at O and H1, phi0 = 20 deg, psi0 = 10 deg, at rest, g = 9.81 m/s^2 along x0 down) in
// rotation-matrix form (formulations/rotation_matrix/), solved by IDA (GGL DAE) and by the
// paper's two-step elimination (ARKODE), against:
//  - the two-angle reference ODE (26) (tests/support/reference_odes.hpp, ARKODE Fehlberg 7(8)
//    at rtol 1e-12): centres of mass and the angles of eq. (27) over 2 s;
//  - the plane of motion: no z component of any point (the paper's validation argument). In the
//    paper's axes z stays exactly 0 (every z entry of R, T* and their rates multiplies zeros), so
//    the plane is also checked with the whole problem turned by a random rotation Q, where
//    leaving the plane Q z0 would show;
//  - energy conservation, and the orthogonality and joint drift;
//  - catena's mixed-basis (quaternion) IDA solution of inputs/double_pendulum.yaml.
#include <cmath>
#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "formulations/rotation_matrix/rm_assembly.hpp"
#include "formulations/rotation_matrix/rm_dae_ida.hpp"
#include "formulations/rotation_matrix/rm_two_step.hpp"
#include "integrators/ida_dynamics.hpp"
#include "io/yaml_loader.hpp"
#include "petsc_fixture.hpp"
#include "reference_odes.hpp"
#include "test_support.hpp"

using namespace catena;
using namespace catena::rm;

namespace {

const std::string kInputs = std::string(CATENA_SOURCE_DIR) + "/inputs/";
constexpr double kMass = 0.108, kLength = 0.20, kA = 0.02, kB = 0.01, kG = 9.81;
constexpr double kPhi0 = M_PI / 9, kPsi0 = M_PI / 18, kTEnd = 2.0, kInterval = 0.01;

struct Points {
  Vec3 g1, h1, g2;
};

Points pointsOf(const RmModel& m, const VecX& q) {
  auto place = [&](Index b, const Vec3& X) {
    const Index o = m.qOffset(b);
    return Vec3(q.segment<3>(o) + Eigen::Map<const Mat3>(q.data() + o + 3) * X);
  };
  return {place(0, m.bodies[0].com), place(0, m.joints[1].point2), place(1, m.bodies[1].com)};
}

struct Comparison {
  double centre_error = 0.0;   ///< m, max |G_i - G_i,ref|
  double angle_error = 0.0;    ///< rad, max |phi - phi_ref|, |psi - psi_ref| (eq. 27)
  double out_of_plane = 0.0;   ///< m, max |z| of G1, H1, G2
  double energy_error = 0.0;   ///< max |E - E0| / max kinetic energy
  std::vector<Points> points;  ///< at each output time
};

const std::vector<double>& outputTimes() {
  static const std::vector<double> times = [] {
    std::vector<double> t;
    for (int k = 0; k <= static_cast<int>(std::lround(kTEnd / kInterval)); ++k)
      t.push_back(k * kInterval);
    return t;
  }();
  return times;
}

const reference::DoublePendulumSolution& referenceSolution() {
  static const reference::DoublePendulumSolution ref = reference::doublePendulumTwoAngle(
      kMass, kLength, kA, kG, kPhi0, kPsi0, 0.0, 0.0, outputTimes());
  return ref;
}

/// Observer comparing each output state with the reference.
RmObserver comparer(const RmModel& m, Comparison& c, double& E0, double& kinetic_max) {
  return [&m, &c, &E0, &kinetic_max, k = std::size_t{0}](const RmState& s) mutable {
    const auto& ref = referenceSolution();
    BOOST_REQUIRE_LT(k, outputTimes().size());
    BOOST_REQUIRE_SMALL(s.t - outputTimes()[k], 1e-12);
    const Points p = pointsOf(m, s.q);
    const auto r = reference::doublePendulumPoints(kLength, ref.phi(k), ref.psi(k));
    c.centre_error =
        std::max({c.centre_error, (p.g1.head<2>() - r.g1).norm(), (p.g2.head<2>() - r.g2).norm()});
    const double phi = std::atan2(p.g1.y(), p.g1.x());                        // eq. (27)
    const double psi = std::atan2(p.g2.y() - p.h1.y(), p.g2.x() - p.h1.x());  // eq. (27)
    c.angle_error =
        std::max({c.angle_error, std::abs(phi - ref.phi(k)), std::abs(psi - ref.psi(k))});
    c.out_of_plane =
        std::max({c.out_of_plane, std::abs(p.g1.z()), std::abs(p.h1.z()), std::abs(p.g2.z())});
    const RmEnergy e = computeRmEnergy(m, s.q, s.v);
    if (k == 0) E0 = e.total();
    kinetic_max = std::max(kinetic_max, e.kinetic);
    c.energy_error = std::max(c.energy_error, std::abs(e.total() - E0));
    c.points.push_back(p);
    ++k;
    return true;
  };
}

void report(const std::string& what, const RmRunResult& r, const Comparison& c) {
  const RmRunStats& st = r.stats;
  BOOST_TEST_MESSAGE(
      what << ": " << r.method << ", " << st.steps << " steps, " << st.rhs_evaluations
           << " RHS/residual evaluations, " << st.newton_iterations << " Newton iterations, "
           << st.projections << " projections, " << st.wall_seconds << " s; centre error "
           << c.centre_error << " m, angle error " << c.angle_error << " rad, out of plane "
           << c.out_of_plane << " m, energy " << c.energy_error
           << " (relative), drift: orthogonality " << st.max_drift.orthogonality << ", joints "
           << st.max_drift.joints << " m, velocity " << st.max_drift.velocity);
}

const RmModel& model() {
  static const RmModel m = buildRmDoublePendulum(kMass, kLength, kA, kB, kPhi0, kPsi0, kG);
  return m;
}

/// Options of every run here: to kTEnd, output every kInterval, rtol 1e-10, atol 1e-12.
template <typename Options>
Options accurate() {
  Options o;
  o.t_end = kTEnd;
  o.output_interval = kInterval;
  o.rtol = 1e-10;
  o.atol = 1e-12;
  return o;
}

/// The double pendulum by integrate(model, initial, options, observer) against the reference.
template <typename Options, typename Integrate>
Comparison run(const std::string& what, Integrate&& integrate, RmRunResult* out) {
  Comparison c;
  double E0 = 0.0, kinetic = 0.0;
  const RmRunResult r = integrate(model(), initialRmState(model()), accurate<Options>(),
                                  comparer(model(), c, E0, kinetic));
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  c.energy_error /= kinetic;
  report(what, r, c);
  if (out) *out = r;
  return c;
}

Comparison runTwoStep(RmRunResult* out = nullptr) {
  return run<RmTwoStepOptions>("two-step", integrateRmTwoStep, out);
}

Comparison runIda(RmRunResult* out = nullptr) {
  return run<RmIdaOptions>("IDA", integrateRmIda, out);
}

/// The bounds both integrators meet against the two-angle reference, and their drift.
void checkAgainstReference(const Comparison& c, const RmRunResult& r) {
  BOOST_TEST(c.points.size() == outputTimes().size());
  BOOST_TEST(c.centre_error < 1e-7);
  BOOST_TEST(c.angle_error < 1e-6);
  BOOST_TEST(c.out_of_plane < 1e-14);
  BOOST_TEST(c.energy_error < 1e-7);
  BOOST_TEST(r.stats.max_drift.orthogonality < 1e-9);
  BOOST_TEST(r.stats.max_drift.joints < 1e-9 * kLength);
}

}  // namespace

BOOST_AUTO_TEST_CASE(two_step_matches_the_two_angle_reference) {
  RmRunResult r;
  const Comparison c = runTwoStep(&r);
  checkAgainstReference(c, r);
}

BOOST_AUTO_TEST_CASE(ida_matches_the_two_angle_reference) {
  RmRunResult r;
  const Comparison c = runIda(&r);
  checkAgainstReference(c, r);
}

BOOST_AUTO_TEST_CASE(stays_in_its_plane_when_the_plane_is_tilted) {
  // The same mechanism described in world axes turned by Q: X -> Q X, J -> Q J Q^T, g -> Q g.
  const Mat3 Q = Quat(Eigen::AngleAxisd(0.9, Vec3(1, -2, 0.5).normalized())).toRotationMatrix();
  RmModel m = model();
  m.gravity = Q * m.gravity;
  for (RmBody& b : m.bodies) {
    b.com = Q * b.com;
    b.inertia = Q * b.inertia * Q.transpose();
  }
  for (RmSphericalJoint& j : m.joints) {
    j.point1 = Q * j.point1;
    j.point2 = Q * j.point2;
  }
  finalizeRmModel(m);
  const Vec3 normal = Q.col(2);
  for (int method = 0; method < 2; ++method) {
    double out_of_plane = 0.0, centre_error = 0.0;
    std::size_t k = 0;
    const RmObserver observe = [&](const RmState& s) {
      const Points p = pointsOf(m, s.q);
      const auto r = reference::doublePendulumPoints(kLength, referenceSolution().phi(k),
                                                     referenceSolution().psi(k));
      ++k;
      for (const Vec3& x : {p.g1, p.h1, p.g2})
        out_of_plane = std::max(out_of_plane, std::abs(normal.dot(x)));
      centre_error = std::max({centre_error, ((Q.transpose() * p.g1).head<2>() - r.g1).norm(),
                               ((Q.transpose() * p.g2).head<2>() - r.g2).norm()});
      return true;
    };
    RmRunResult r;
    if (method == 0) {
      r = integrateRmTwoStep(m, initialRmState(m), accurate<RmTwoStepOptions>(), observe);
    } else {
      r = integrateRmIda(m, initialRmState(m), accurate<RmIdaOptions>(), observe);
    }
    BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
    BOOST_TEST_MESSAGE("tilted plane, " << r.method << ": out of plane " << out_of_plane
                                        << " m, centre error " << centre_error << " m");
    BOOST_TEST(out_of_plane < 1e-12);
    BOOST_TEST(centre_error < 1e-7);
  }
}

BOOST_AUTO_TEST_CASE(rotation_matrix_agrees_with_the_mixed_basis_ida) {
  const Model qm = loadMechanismFile(kInputs + "double_pendulum.yaml").model;
  const RmModel rm = rmModelFromCatenaModel(qm);
  const IdaOptions o = accurate<IdaOptions>();
  std::vector<State> states;
  const DynamicsResult r =
      integrateIda(qm, buildAssemblyPlan(qm), initialState(qm), o, [&](const State& s) {
        states.push_back(s);
        return true;
      });
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_REQUIRE_EQUAL(states.size(), outputTimes().size());
  // The rotation-matrix model converted from the same input (rounded inertia), two-step.
  const RmTwoStepOptions to = accurate<RmTwoStepOptions>();
  double worst = 0.0;
  std::size_t k = 0;
  const RmRunResult rr = integrateRmTwoStep(rm, initialRmState(rm), to, [&](const RmState& s) {
    const Points p = pointsOf(rm, s.q);
    worst = std::max({worst, (p.g1 - states[k].q.segment<3>(qm.qOffset(0))).norm(),
                      (p.g2 - states[k].q.segment<3>(qm.qOffset(1))).norm()});
    ++k;
    return true;
  });
  BOOST_REQUIRE_MESSAGE(rr.status.ok(), rr.status.message);
  BOOST_TEST_MESSAGE("mixed-basis IDA (" << r.method << ", " << r.stats.steps
                                         << " steps) vs rotation-matrix two-step: centres of mass "
                                            "within "
                                         << worst << " m");
  BOOST_TEST(k == states.size());
  BOOST_TEST(worst < 1e-7);
}
