#define BOOST_TEST_MODULE rk_dynamics
// Explicit Runge-Kutta on the index-1 form with projection (integrators/rk_dynamics.hpp) against
// independent formulations (numbers: docs/dynamics-rk.md):
//  - the spatial pendulum and the rotation-matrix paper's double pendulum against their
//    minimal-coordinate ODEs (tests/support/reference_odes.hpp): for each ARKODE table the
//    position error over the run falls as rtol falls (a tighter tolerance is never worse) and
//    stays within a stated multiple of rtol times the mechanism's size;
//  - the constraint drift at every output below the projection tolerance;
//  - the heavy spin top's energy;
//  - the 3D double four-bar with 6 redundant rows against the planar model;
//  - the spatial slider-crank against IDA index 2 at a tight tolerance;
//  - failures: max_steps and a stiff model, a Status that names the time reached; bad options.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "energy_check.hpp"
#include "integrators/ida_dynamics.hpp"
#include "integrators/rk_dynamics.hpp"
#include "io/yaml_loader.hpp"
#include "petsc_fixture.hpp"
#include "reference_odes.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

const std::string kInputs = std::string(CATENA_SOURCE_DIR) + "/inputs/";
const RkTable kTables[] = {RkTable::kDormandPrince54, RkTable::kVerner65, RkTable::kFehlberg78};

Model load(const std::string& name) {
  return loadMechanismFile(kInputs + name + ".yaml").model;
}

struct RkRun {
  RkResult result;
  std::vector<State> states;
};

RkRun run(const Model& m, const RkOptions& o) {
  RkRun r;
  r.result = integrateRungeKutta(m, buildAssemblyPlan(m), initialState(m), o, [&](const State& s) {
    r.states.push_back(s);
    return true;
  });
  const DynamicsStats& st = r.result.stats;
  BOOST_TEST_MESSAGE("  " << m.name << ", " << rkTableName(o.table) << " rtol " << o.rtol << ": "
                          << st.steps << " steps (" << st.rejected_steps << " rejected), "
                          << r.result.rhs_evaluations << " right-hand sides, " << st.projections
                          << " projections");
  return r;
}

RkOptions options(RkTable table, double rtol, double t_end, double interval) {
  RkOptions o;
  o.table = table;
  o.rtol = rtol;
  o.atol = 1e-2 * rtol;
  o.t_end = t_end;
  o.output_interval = interval;
  return o;
}

std::vector<double> outputTimes(double t_end, double interval) {
  std::vector<double> times;
  const int n = static_cast<int>(std::lround(t_end / interval));
  for (int k = 0; k <= n; ++k) times.push_back(k * interval);
  return times;
}

/// Position errors of one table over rtol = 1e-6, 1e-8, 1e-10 (m) on a mechanism of size
/// `size` (m): each no larger than the one before unless both are at round-off (below 1e-11
/// size: Fehlberg 8(7) reaches 2e-13..1e-12 m on these at every rtol, its errors then move
/// with round-off), the tightest below bound_at_1e10 (m).
void checkConvergence(const std::vector<double>& error, double size, double bound_at_1e10) {
  const double round_off = 1e-11 * size;
  BOOST_TEST(error[1] <= std::max(error[0], round_off));
  BOOST_TEST(error[2] <= std::max(error[1], round_off));
  BOOST_TEST(error[2] <= bound_at_1e10);
}

/// For every table, the largest of error(k, state) over the outputs (every `interval` s to
/// t_end) at rtol 1e-6, 1e-8, 1e-10, judged by checkConvergence.
void convergenceLadder(const Model& m, double t_end, double interval, double size,
                       const std::function<double(std::size_t, const State&)>& error) {
  const std::vector<double> times = outputTimes(t_end, interval);
  for (const RkTable table : kTables) {
    std::vector<double> worst;
    for (const double rtol : {1e-6, 1e-8, 1e-10}) {
      const RkRun r = run(m, options(table, rtol, t_end, interval));
      BOOST_REQUIRE_MESSAGE(r.result.status.ok(), r.result.status.message);
      BOOST_REQUIRE_EQUAL(r.states.size(), times.size());
      double e = 0.0;
      for (std::size_t k = 0; k < times.size(); ++k) {
        BOOST_REQUIRE_SMALL(r.states[k].t - times[k], 1e-12);
        e = std::max(e, error(k, r.states[k]));
      }
      BOOST_TEST_MESSAGE("    position error over " << t_end << " s: " << e << " m");
      worst.push_back(e);
    }
    checkConvergence(worst, size, 1e-8 * size);
  }
}

}  // namespace

// The projection-continuation paper's spatial pendulum (1 kg, l = 0.08 m, r0 = (0.08, 0, 0),
// v0 = 0.7895 m/s along y) against the ODE in spherical coordinates, 1 s.
BOOST_AUTO_TEST_CASE(spatial_pendulum_converges_to_the_spherical_coordinate_reference) {
  const Model m = load("spatial_pendulum");
  const double t_end = 1.0, interval = 0.1, l = 0.08;
  const auto ref = reference::sphericalPendulum(1.0, l, 9.81, Vec3(0.08, 0, 0), Vec3(0, 0.7895, 0),
                                                outputTimes(t_end, interval));
  convergenceLadder(m, t_end, interval, l, [&](std::size_t k, const State& s) {
    return (s.q.segment<3>(m.qOffset(0)) - ref.r.col(k)).norm();
  });
}

// The rotation-matrix paper's double pendulum (two bars on spherical joints, 20 and 10 deg, at
// rest) against its two-angle equations, 2 s: the centres of mass.
BOOST_AUTO_TEST_CASE(double_pendulum_converges_to_the_two_angle_reference) {
  const Model m = load("double_pendulum");
  const double t_end = 2.0, interval = 0.1, deg = M_PI / 180.0;
  const auto ref = reference::doublePendulumTwoAngle(0.108, 0.20, 0.02, 9.81, 20 * deg, 10 * deg, 0,
                                                     0, outputTimes(t_end, interval));
  convergenceLadder(m, t_end, interval, 0.4, [&](std::size_t k, const State& s) {
    const auto p = reference::doublePendulumPoints(0.20, ref.phi(k), ref.psi(k));
    double e = 0.0;
    for (int b = 0; b < 2; ++b)
      e = std::max(e, (s.q.segment<2>(m.qOffset(b)) - (b == 0 ? p.g1 : p.g2)).norm());
    return e;
  });
}

// Every output satisfies both constraint levels to the projection tolerance (rtol by default)
// times the scales of the projection test, and the quaternions are unit.
BOOST_AUTO_TEST_CASE(outputs_stay_on_the_constraints) {
  const Model m = load("spatial_slider_crank");
  const AssemblyPlan plan = buildAssemblyPlan(m);
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  VecX C(m.nc), Ct(m.nc);
  for (const double rtol : {1e-4, 1e-7}) {
    const RkRun r = run(m, options(RkTable::kVerner65, rtol, 2.0, 0.01));
    BOOST_REQUIRE_MESSAGE(r.result.status.ok(), r.result.status.message);
    BOOST_TEST(r.result.stats.projections > 0);
    for (const State& s : r.states) {
      assembleConstraints(m, plan, s.q, s.t, &C, &Cq);
      assembleConstraintTimeDerivative(m, plan, s.q, s.t, Ct);
      const double scale = lengthScale(m);
      BOOST_TEST(C.cwiseAbs().maxCoeff() <= rtol * scale);
      BOOST_TEST((Cq * s.v + Ct).cwiseAbs().maxCoeff() <=
                 rtol * std::max(1.0, s.v.cwiseAbs().maxCoeff()));
      for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b)
        BOOST_TEST(std::abs(s.q.segment<4>(m.qOffset(b) + 3).norm() - 1.0) <= 1e-14);
    }
  }
}

// The heavy spin top conserves energy; the error relative to the largest kinetic energy falls
// with rtol.
BOOST_AUTO_TEST_CASE(spin_top_conserves_energy) {
  const Model m = load("spin_top");
  const AssemblyPlan plan = buildAssemblyPlan(m);
  for (const RkTable table : kTables) {
    std::vector<double> ratio;
    for (const double rtol : {1e-6, 1e-9}) {
      const RkRun r = run(m, options(table, rtol, 5.0, 0.1));
      BOOST_REQUIRE_MESSAGE(r.result.status.ok(), r.result.status.message);
      const double error = test::relativeEnergyError(m, plan, r.states);
      BOOST_TEST_MESSAGE("    |E - E0| / max kinetic energy: " << error);
      ratio.push_back(error);
    }
    BOOST_TEST(ratio[1] <= ratio[0]);
    BOOST_TEST(ratio[1] <= 1e-7);
  }
}

// The double four-bar modelled in 3D with full revolute joints (6 redundant rows) moves as the
// planar model: the rows are left out at the start and the bodies' centres agree.
BOOST_AUTO_TEST_CASE(redundant_3d_double_four_bar_moves_as_the_planar_one) {
  const Model planar = load("double_four_bar"), spatial = load("double_four_bar_3d");
  BOOST_REQUIRE_EQUAL(planar.bodies.size(), spatial.bodies.size());
  const RkOptions o = options(RkTable::kVerner65, 1e-9, 1.0, 0.05);
  const RkRun a = run(planar, o), b = run(spatial, o);
  BOOST_REQUIRE_MESSAGE(a.result.status.ok(), a.result.status.message);
  BOOST_REQUIRE_MESSAGE(b.result.status.ok(), b.result.status.message);
  BOOST_TEST(b.result.redundant_rows.size() == 6u);
  BOOST_TEST(a.result.redundant_rows.empty());
  BOOST_REQUIRE_EQUAL(a.states.size(), b.states.size());
  double worst = 0.0;
  for (std::size_t k = 0; k < a.states.size(); ++k)
    for (Index i = 0; i < static_cast<Index>(planar.bodies.size()); ++i)
      worst = std::max(worst, (a.states[k].q.segment<2>(planar.qOffset(i)) -
                               b.states[k].q.segment<2>(spatial.qOffset(i)))
                                  .norm());
  BOOST_TEST_MESSAGE("  planar vs 3D body centres over 1 s: " << worst << " m");
  BOOST_TEST(worst <= 1e-7);
}

// The planar double four-bar for 10 s through its ten horizontal (singular) configurations,
// each bridged by MCS, against the parallelogram motion in closed form (the 1-DOF equation
// 3 theta'' = -3.5 g cos(theta), Fehlberg 7(8) at 1e-12; benchmarks/results/singular_passage.md):
// every bar centre within 1e-6 m at rtol 1e-4 and 1e-6. Before MCS's bridges ended on the
// constraints to the start assembly's tolerance, the resumed starts' assembly moved the bars
// along the crossing's near-null motion: 4.1e-3 and 1.7e-4 m (now 7e-8 and 1.4e-8 m).
BOOST_AUTO_TEST_CASE(double_four_bar_passes_its_crossings_on_the_closed_form) {
  const Model m = load("double_four_bar");
  const double t_end = 10.0, interval = 0.01, g = 9.81;
  const std::vector<double> times = outputTimes(t_end, interval);
  const Eigen::MatrixXd ref = reference::integrateOde(
      [&](double, const Eigen::VectorXd& y) {
        Eigen::VectorXd d(2);
        d << y(1), -3.5 * g * std::cos(y(0)) / 3.0;
        return d;
      },
      0.0, Eigen::Vector2d(M_PI / 2, -1.0), times);
  // Centres of cranks j hinged at (j, 0) and of couplers k between their tops (1 m bars).
  auto centres = [](double theta) {
    std::vector<Vec2> p;
    for (int j = 0; j < 3; ++j) p.emplace_back(j + 0.5 * std::cos(theta), 0.5 * std::sin(theta));
    for (int k = 0; k < 2; ++k) p.emplace_back(k + 0.5 + std::cos(theta), std::sin(theta));
    return p;
  };
  const std::vector<std::string> bars = {"crank_0_0", "crank_0_1", "crank_0_2", "coupler_0_0",
                                         "coupler_0_1"};
  for (const double rtol : {1e-4, 1e-6}) {
    const RkRun r = run(m, options(RkTable::kVerner65, rtol, t_end, interval));
    BOOST_REQUIRE_MESSAGE(r.result.status.ok(), r.result.status.message);
    BOOST_REQUIRE_EQUAL(r.states.size(), times.size());
    BOOST_TEST(r.result.passages.size() >= 1u);
    double worst = 0.0;
    for (std::size_t k = 0; k < times.size(); ++k) {
      const std::vector<Vec2> exact = centres(ref(0, k));
      for (std::size_t i = 0; i < bars.size(); ++i)
        worst = std::max(
            worst, (r.states[k].q.segment<2>(m.qOffset(m.findBody(bars[i]))) - exact[i]).norm());
    }
    BOOST_TEST_MESSAGE("  rtol " << rtol << ": " << r.result.passages.size()
                                 << " passages, largest centre error " << worst << " m");
    BOOST_TEST(worst <= 1e-6, "rtol " << rtol << ": " << worst << " m off the closed form");
  }
}

// The spatial slider-crank (a closed loop with a prismatic joint) against IDA index 2, both tight.
BOOST_AUTO_TEST_CASE(spatial_slider_crank_agrees_with_ida) {
  const Model m = load("spatial_slider_crank");
  const RkRun r = run(m, options(RkTable::kFehlberg78, 1e-11, 1.0, 0.1));
  BOOST_REQUIRE_MESSAGE(r.result.status.ok(), r.result.status.message);
  IdaOptions io;
  io.rtol = 1e-11;
  io.atol = 1e-13;
  io.t_end = 1.0;
  io.output_interval = 0.1;
  std::vector<State> ida;
  const DynamicsResult ir =
      integrateIda(m, buildAssemblyPlan(m), initialState(m), io, [&](const State& s) {
        ida.push_back(s);
        return true;
      });
  BOOST_REQUIRE_MESSAGE(ir.status.ok(), ir.status.message);
  BOOST_REQUIRE_EQUAL(ida.size(), r.states.size());
  double worst = 0.0;
  for (std::size_t k = 0; k < ida.size(); ++k)
    for (Index i = 0; i < static_cast<Index>(m.bodies.size()); ++i)
      worst = std::max(
          worst,
          (ida[k].q.segment<3>(m.qOffset(i)) - r.states[k].q.segment<3>(m.qOffset(i))).norm());
  BOOST_TEST_MESSAGE("  RK Fehlberg vs IDA index 2 at rtol 1e-11, body centres: " << worst << " m");
  BOOST_TEST(worst <= 1e-7);
}

BOOST_AUTO_TEST_CASE(max_steps_returns_a_clear_status) {
  const Model m = load("pendulum");
  RkOptions o = options(RkTable::kVerner65, 1e-8, 2.0, 0.5);
  o.max_steps = 20;
  const RkRun r = run(m, o);
  BOOST_TEST(!r.result.status.ok());
  BOOST_TEST_MESSAGE("  " << r.result.status.message);
  BOOST_TEST(r.result.status.message.find("Runge-Kutta") != std::string::npos);
  BOOST_TEST(r.result.status.message.find("t = ") != std::string::npos);
  BOOST_TEST(r.result.state.t > 0.0);
  BOOST_TEST(r.result.state.t < 2.0);
}

BOOST_AUTO_TEST_CASE(invalid_options_throw) {
  const Model m = load("pendulum");
  const AssemblyPlan plan = buildAssemblyPlan(m);
  RkOptions o;
  o.rtol = 0.0;
  BOOST_CHECK_THROW(integrateRungeKutta(m, plan, initialState(m), o, nullptr), Error);
  o = RkOptions{};
  o.t_end = -1.0;
  BOOST_CHECK_THROW(integrateRungeKutta(m, plan, initialState(m), o, nullptr), Error);
  BOOST_CHECK_THROW(parseRkTable("rk4"), Error);
  for (const RkTable t : kTables) BOOST_TEST((parseRkTable(rkTableName(t)) == t));
}
