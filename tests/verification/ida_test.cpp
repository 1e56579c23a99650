#define BOOST_TEST_MODULE ida
// SUNDIALS IDA integration of the multibody DAE (integrators/ida_dynamics.hpp) in its three
// formulations against closed forms and each other (numbers: docs/dynamics-ida.md):
//  - the period of the pendulum released at 30 deg (the paper's 3D point mass, 15 kg, 4 m,
//    inputs/pendulum.yaml) and at 150 deg (a planar point mass) against
//    T = 4 sqrt(L/g) K(sin(theta0/2)), from zero crossings of the trajectory (cubic Hermite
//    interpolation of x, x');
//  - energy conservation of the heavy spin top and of the double pendulum;
//  - the constraint drift |C| and |C_q v + C_t| of each formulation on the spatial pendulum,
//    and the formulations' agreement at t = 2 s;
//  - failures: max_steps, and a slider driven beyond the linkage's reach (an IDA error), each
//    a Status naming the time reached; an observer that stops the run.
#include <cmath>
#include <string>
#include <vector>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "energy_check.hpp"
#include "ida_support.hpp"
#include "integrators/ida_dynamics.hpp"
#include "io/yaml_loader.hpp"
#include "model/generators.hpp"
#include "model/model_builder.hpp"
#include "pendulum_model.hpp"
#include "petsc_fixture.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

const std::string kInputs = std::string(CATENA_SOURCE_DIR) + "/inputs/";
const auto& kFormulations = test::kIdaFormulations;
using Run = test::IdaRun;

Run integrate(const Model& m, const IdaOptions& o) {
  const Run r = test::recordIda(m, buildAssemblyPlan(m), o);
  const DynamicsStats& st = r.result.stats;
  BOOST_TEST_MESSAGE("  " << m.name << ", " << r.result.method << ": " << st.steps << " steps ("
                          << st.rejected_steps << " rejected), " << st.newton_iterations
                          << " Newton iterations, " << st.jacobian_evaluations
                          << " Newton matrices, " << st.projections << " projections, h in ["
                          << st.smallest_step << ", " << st.largest_step << "] s");
  return r;
}

/// Times where x(t) crosses zero, from samples of x and x' (cubic Hermite interpolation between
/// consecutive samples, bisection on it).
std::vector<double> zeroCrossings(const std::vector<double>& t, const std::vector<double>& x,
                                  const std::vector<double>& xd) {
  std::vector<double> roots;
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    if (x[i] == 0.0 || (x[i] < 0.0) == (x[i + 1] < 0.0)) continue;
    const double h = t[i + 1] - t[i];
    auto p = [&](double s) { return test::cubicHermite(x[i], xd[i], x[i + 1], xd[i + 1], h, s); };
    double a = 0.0, b = 1.0;
    for (int it = 0; it < 80; ++it) {
      const double c = 0.5 * (a + b);
      ((p(a) < 0.0) == (p(c) < 0.0) ? a : b) = c;
    }
    roots.push_back(t[i] + 0.5 * (a + b) * h);
  }
  return roots;
}

/// Period from the first two zero crossings of coordinate k of q (velocity coordinate kv).
double measuredPeriod(const Run& r, Index k, Index kv) {
  std::vector<double> t, x, xd;
  for (const State& s : r.states) {
    t.push_back(s.t);
    x.push_back(s.q(k));
    xd.push_back(s.v(kv));
  }
  const std::vector<double> roots = zeroCrossings(t, x, xd);
  BOOST_REQUIRE_GE(roots.size(), 2u);
  return 2.0 * (roots[1] - roots[0]);
}

double closedFormPeriod(double L, double theta0) {
  return 4.0 * std::sqrt(L / 9.81) * std::comp_ellint_1(std::sin(0.5 * theta0));
}

IdaOptions tight(IdaFormulation f, double t_end, double rtol = 1e-8) {
  IdaOptions o;
  o.formulation = f;
  o.t_end = t_end;
  o.rtol = rtol;
  o.atol = 1e-2 * rtol;
  return o;
}

/// The first step scaled by these factors: a bound must hold for every step sequence, not
/// one (with 1.0 alone, 0.98..1.02 broke the index-3 and index-1 bounds in 7 of 8 builds).
constexpr double kFirstStepFactors[] = {0.98, 1.0, 1.02};

/// Largest relative period error of a pendulum run with options o (t_end set here) over the
/// perturbed first steps.
double periodError(const Model& m, IdaOptions o, double T) {
  o.t_end = 0.85 * T;  // x crosses 0 at T/4 and 3T/4
  double worst = 0.0;
  for (const double factor : kFirstStepFactors) {
    o.initial_step_factor = factor;
    const Run r = integrate(m, o);
    BOOST_REQUIRE_MESSAGE(r.result.status.ok(), r.result.status.message);
    const double Tm = measuredPeriod(r, 0, 0);
    BOOST_TEST_MESSAGE("  first step x" << factor << ": period " << Tm << " s, closed form " << T
                                        << " s, relative error " << std::abs(Tm - T) / T);
    worst = std::max(worst, std::abs(Tm - T) / T);
  }
  return worst;
}

/// Period errors at rtol 1e-8 for the three formulations. Index 3 controls only the positions'
/// local error (the velocities are out of the error test), and its error is ~100-1000x larger
/// at the same rtol (docs/dynamics-ida.md); it reaches 1e-6 at rtol 1e-11, at which it is
/// checked as well.
///
/// Bounds: about 3x the worst of the perturbed first steps (kFirstStepFactors) measured on
/// 2026-11-26 (GGL and index 1: <= 5.7e-7; index 3: 5.7e-6 at 30 deg, 9.5e-5 at 150 deg), so
/// that round-off and a compiler's choices do not decide them, and the trend as rtol shrinks is
/// asserted too (index 3 at 1e-11).
void checkPeriod(const Model& m, double T, double index3_bound_at_1e8) {
  BOOST_TEST(periodError(m, tight(IdaFormulation::kIndex2, 0.0), T) <= 2e-6);
  BOOST_TEST(periodError(m, tight(IdaFormulation::kIndex1, 0.0), T) <= 2e-6);
  BOOST_TEST(periodError(m, tight(IdaFormulation::kIndex3, 0.0), T) <= index3_bound_at_1e8);
  BOOST_TEST(periodError(m, tight(IdaFormulation::kIndex3, 0.0, 1e-11), T) <= 1e-6);
}

struct Drift {
  double position = 0.0, velocity = 0.0;
};

/// Largest |C|_inf (m) and |C_q v + C_t|_inf / max(1, |v|_inf) over the states (the scales of
/// the index-1 projection test).
Drift maxDrift(const Model& m, const std::vector<State>& states) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  VecX C(m.nc), Ct(m.nc);
  Drift d;
  for (const State& s : states) {
    assembleConstraints(m, plan, s.q, s.t, &C, &Cq);
    assembleConstraintTimeDerivative(m, plan, s.q, s.t, Ct);
    d.position = std::max(d.position, C.cwiseAbs().maxCoeff());
    d.velocity = std::max(d.velocity, (Cq * s.v + Ct).cwiseAbs().maxCoeff() /
                                          std::max(1.0, s.v.cwiseAbs().maxCoeff()));
  }
  return d;
}

}  // namespace

BOOST_AUTO_TEST_CASE(pendulum_period_at_30_deg) {
  const Model m = loadMechanismFile(kInputs + "pendulum.yaml").model;
  BOOST_REQUIRE_CLOSE(m.bodies[0].mass, 15.0, 1e-12);
  BOOST_REQUIRE_CLOSE(m.bodies[0].position.norm(), 4.0, 1e-12);  // hinge at the origin
  checkPeriod(m, closedFormPeriod(4.0, M_PI / 6), 2e-5);
}

BOOST_AUTO_TEST_CASE(pendulum_period_at_150_deg) {
  const double L = 4.0, theta0 = 150.0 * M_PI / 180.0;
  checkPeriod(test::planarPendulum(L, theta0), closedFormPeriod(L, theta0), 3e-4);
}

/// Largest |E - E0| over the run relative to the largest kinetic energy (the energy
/// exchanged), the worst over the perturbed first steps.
double energyError(const Model& m, IdaOptions o) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  double ratio = 0.0;
  for (const double factor : kFirstStepFactors) {
    o.initial_step_factor = factor;
    const Run r = integrate(m, o);
    BOOST_REQUIRE_MESSAGE(r.result.status.ok(), r.result.status.message);
    const double error = test::relativeEnergyError(m, plan, r.states);
    BOOST_TEST_MESSAGE("  first step x" << factor << ": |E - E0| / largest kinetic energy "
                                        << error);
    ratio = std::max(ratio, error);
  }
  return ratio;
}

/// Bounds about 3x the worst of the perturbed first steps measured on 2026-11-26 (GGL and
/// index 1: <= 1.1e-6, index 1 on the double pendulum; index 3: 7.1e-5, double pendulum), and
/// index 3 again at rtol 1e-11 for the trend.
void checkEnergy(const Model& m, double t_end) {
  BOOST_TEST(energyError(m, tight(IdaFormulation::kIndex2, t_end)) <= 3e-6);
  BOOST_TEST(energyError(m, tight(IdaFormulation::kIndex1, t_end)) <= 3e-6);
  BOOST_TEST(energyError(m, tight(IdaFormulation::kIndex3, t_end)) <= 3e-4);
  BOOST_TEST(energyError(m, tight(IdaFormulation::kIndex3, t_end, 1e-11)) <= 1e-6);
}

BOOST_AUTO_TEST_CASE(spin_top_conserves_energy) {
  checkEnergy(loadMechanismFile(kInputs + "spin_top.yaml").model, 5.0);
}

BOOST_AUTO_TEST_CASE(double_pendulum_conserves_energy) {
  checkEnergy(loadMechanismFile(kInputs + "double_pendulum.yaml").model, 2.0);
}

/// A long chain released from its 'V' starts in every formulation. GGL's mu takes up the
/// round-off of q' = c_j (q - q_pred) amplified by (C_q C_q^T)^-1 (~N^2 on a chain); with
/// unscaled Newton weights its corrections stalled above the tolerance at any step, and IDA
/// failed at t = 0: from 15000 links at the default multiplier_atol (1e-2), from 2000 links at
/// 1e-5 (hand runs), which this test uses to keep the chain small. The weights of mu are now
/// scaled by h, as index 3 scales v (ida_dynamics.cpp, weightCallback).
BOOST_AUTO_TEST_CASE(long_chain_starts_in_every_formulation) {
  CatenaryChainOptions c;
  c.links = 2000;
  const Model m = buildCatenaryChain(c);
  std::vector<State> ends;
  for (IdaFormulation f : kFormulations) {
    IdaOptions o;
    o.formulation = f;
    o.t_end = 1e-3;
    o.rtol = 1e-9;
    o.atol = 1e-11;
    o.multiplier_atol = 1e-5;
    const Run r = integrate(m, o);
    BOOST_TEST_CONTEXT(idaFormulationName(f)) {
      BOOST_TEST(r.result.status.ok(), r.result.status.message);
      BOOST_TEST(r.result.state.t == o.t_end);
    }
    ends.push_back(r.result.state);
  }
  // The formulations agree on where every link went; the largest displacement is for scale.
  double moved = 0.0, apart = 0.0;
  for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b) {
    const Index k = m.qOffset(b);
    moved = std::max(moved, (ends[0].q.segment<3>(k) - m.bodies[b].position).norm());
    for (const State& e : ends) apart = std::max(apart, (e.q - ends[0].q).segment<3>(k).norm());
  }
  BOOST_TEST_MESSAGE("  largest displacement " << moved << " m, formulations apart by " << apart
                                               << " m");
  BOOST_TEST(moved > 0.0);
  BOOST_TEST(apart <= 1e-2 * moved);
}

// Drift of the constraints at the outputs (every 0.01 s; l = 0.08 m, |v| ~ 0.8 m/s) and
// agreement at t = 2 s. Index 3 holds C = 0 to the Newton tolerance and leaves C_q v + C_t
// uncontrolled; GGL holds both; index 1 lets both drift up to the projection tolerance
// (10 rtol), plus the interpolation error between steps.
BOOST_AUTO_TEST_CASE(spatial_pendulum_drift_and_agreement) {
  const Model m = loadMechanismFile(kInputs + "spatial_pendulum.yaml").model;
  std::vector<State> finals;
  for (IdaFormulation f : kFormulations) {
    IdaOptions o = tight(f, 2.0);
    o.output_interval = 0.01;
    const Run r = integrate(m, o);
    BOOST_REQUIRE_MESSAGE(r.result.status.ok(), r.result.status.message);
    BOOST_TEST(r.states.size() == 201u);
    BOOST_TEST(r.states.back().t == 2.0);
    const Drift d = maxDrift(m, r.states);
    BOOST_TEST_MESSAGE("  max |C| = " << d.position
                                      << " m, max |C_q v + C_t| / max(1, |v|) = " << d.velocity);
    switch (f) {
      case IdaFormulation::kIndex3:
        BOOST_TEST(d.position <= 1e-9);
        BOOST_TEST(d.velocity <= 1e-4);
        break;
      case IdaFormulation::kIndex2:
        BOOST_TEST(d.position <= 1e-9);
        BOOST_TEST(d.velocity <= 1e-8);
        break;
      case IdaFormulation::kIndex1:
        BOOST_TEST(d.position <= 10 * o.rtol * lengthScale(m));
        BOOST_TEST(d.velocity <= 10 * o.rtol);
        BOOST_TEST(r.result.stats.projections >= 1);
        break;
    }
    finals.push_back(r.states.back());
  }
  // At rtol 1e-8, index 1 and GGL agree to ~1e-7 m (of 0.08 m); index 3 is ~1e-5 m off, and
  // agrees as closely at rtol 1e-11.
  const State index3 = integrate(m, tight(IdaFormulation::kIndex3, 2.0, 1e-11)).states.back();
  BOOST_TEST_MESSAGE("  |x3(1e-8) - x2| = "
                     << (finals[0].q.head<3>() - finals[1].q.head<3>()).norm()
                     << " m, |x3(1e-11) - x2| = "
                     << (index3.q.head<3>() - finals[1].q.head<3>()).norm() << " m, |x1 - x2| = "
                     << (finals[2].q.head<3>() - finals[1].q.head<3>()).norm());
  test::checkClose(finals[2].q.head<3>(), finals[1].q.head<3>(), 1e-6, "index 1 vs GGL, x(2 s)");
  test::checkClose(finals[2].v.head<3>(), finals[1].v.head<3>(), 1e-5, "index 1 vs GGL, v(2 s)");
  test::checkClose(finals[0].q.head<3>(), finals[1].q.head<3>(), 1e-4, "index 3 vs GGL, x(2 s)");
  test::checkClose(index3.q.head<3>(), finals[1].q.head<3>(), 1e-6, "index 3 (rtol 1e-11) vs GGL");
  test::checkClose(index3.v.head<3>(), finals[1].v.head<3>(), 1e-5, "index 3 (rtol 1e-11) vs GGL");
}

BOOST_AUTO_TEST_CASE(max_steps_returns_a_clear_status) {
  const Model m = loadMechanismFile(kInputs + "spatial_pendulum.yaml").model;
  IdaOptions o = tight(IdaFormulation::kIndex2, 2.0);
  o.max_steps = 5;
  const Run r = integrate(m, o);
  BOOST_TEST(!r.result.status.ok());
  BOOST_TEST_MESSAGE("  " << r.result.status.message);
  BOOST_TEST(r.result.status.message.find("max_steps = 5") != std::string::npos);
  BOOST_TEST(r.result.status.message.find("t = ") != std::string::npos);
  BOOST_TEST(r.result.stats.steps == 5);
  BOOST_TEST(r.result.state.t > 0.0);
  BOOST_TEST(r.result.state.t < 2.0);
  BOOST_TEST(r.result.worst_rows.size() == 4u);  // the universal joint's rows
}

/// Planar slider-crank (crank 1 m hinged at the origin, rod 2 m, slider on the x axis) whose
/// slider is driven along x by x(t) = 2.5 + t m: beyond x = 3 m (t = 0.5 s) the linkage
/// cannot reach it, and at t = 0.5 s crank and rod align (C_q singular).
Model sliderCrankDrivenOutOfReach() {
  ModelBuilder b(2, "slider_crank_out_of_reach");
  b.setGravity(Vec3(0, -9.81, 0));
  const double phi = std::acos(0.65);  // crank angle with the slider at 2.5 m
  const Vec3 A(std::cos(phi), std::sin(phi), 0), B(2.5, 0, 0);
  const double psi = std::atan2(B.y() - A.y(), B.x() - A.x());
  auto body = [&](const std::string& name, const Vec3& p, double angle, double length) {
    Body k;
    k.name = name;
    k.mass = 1.0;
    k.inertia(2, 2) = length * length / 12.0 + 1e-3;
    k.position = p;
    k.orientation = Quat(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
    return b.addBody(k);
  };
  auto marker = [&](const std::string& name, Index on, const Vec3& p) {
    Marker k;
    k.name = name;
    k.body = on;
    k.position = p;
    return b.addMarker(k);
  };
  auto joint = [&](const std::string& name, JointType type, Index m1, Index m2) {
    Joint j;
    j.name = name;
    j.type = type;
    j.marker1 = m1;
    j.marker2 = m2;
    if (type == JointType::kDrivenPrismatic) {
      j.motion.active = true;
      const double x[2] = {2.5, 1.0};  // smooth at t = 0: a ramp's kink there would make the
      j.motion.translation[0] = TimeFunction::polynomial(x, 2);  // initial velocity inconsistent
    }
    b.addJoint(j);
  };
  const Index crank = body("crank", 0.5 * A, phi, 1.0);
  const Index rod = body("rod", 0.5 * (A + B), psi, 2.0);
  const Index slider = body("slider", B, 0.0, 0.2);
  joint("O", JointType::kRevolute, marker("crank/O", crank, Vec3(-0.5, 0, 0)),
        marker("ground/O", kGround, Vec3::Zero()));
  joint("A", JointType::kRevolute, marker("rod/A", rod, Vec3(-1.0, 0, 0)),
        marker("crank/A", crank, Vec3(0.5, 0, 0)));
  joint("B", JointType::kRevolute, marker("slider/B", slider, Vec3::Zero()),
        marker("rod/B", rod, Vec3(1.0, 0, 0)));
  joint("drive", JointType::kDrivenPrismatic, marker("slider/drive", slider, Vec3::Zero()),
        marker("ground/drive", kGround, Vec3::Zero()));
  return b.finalize();
}

// An IDA error becomes a Status naming the time reached, IDA's flag and message, and the worst
// constraint rows; the run never hangs.
BOOST_AUTO_TEST_CASE(ida_error_returns_a_clear_status) {
  const Model m = sliderCrankDrivenOutOfReach();
  for (IdaFormulation f : kFormulations) {
    const Run r = integrate(m, tight(f, 1.0));
    BOOST_TEST_MESSAGE("  " << r.result.status.message);
    BOOST_TEST(!r.result.status.ok());
    BOOST_TEST(r.result.status.message.find("failed at t = ") != std::string::npos);
    BOOST_TEST(r.result.status.message.find("IDA_") != std::string::npos);  // IDA's flag
    BOOST_TEST(r.result.state.t > 0.45);
    BOOST_TEST(r.result.state.t < 0.5 + 1e-6);
    BOOST_TEST(r.result.worst_rows.size() == 5u);
  }
}

BOOST_AUTO_TEST_CASE(observer_can_stop_the_run) {
  const Model m = loadMechanismFile(kInputs + "pendulum.yaml").model;
  IdaOptions o;
  o.t_end = 1.0;
  o.output_interval = 0.1;
  int calls = 0;
  const DynamicsResult r = integrateIda(m, buildAssemblyPlan(m), initialState(m), o,
                                        [&](const State&) { return ++calls < 4; });
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST(calls == 4);
  BOOST_TEST(std::abs(r.state.t - 0.3) < 1e-12);  // the run ends where the observer stopped it
}
