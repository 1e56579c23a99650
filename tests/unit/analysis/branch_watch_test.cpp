#define BOOST_TEST_MODULE branch_watch
// The velocity-jump watch of integrators/branch_watch.hpp on synthetic trajectories of one body:
// smooth motions, a load switched on, a short load pulse, and a jump of the velocity's
// direction within one output interval (what a switch of branch looks like); and with the
// assembly plan, on the double four-bar's outputs, a jump reported only next to its singular
// configuration (states of its parallelogram branch built in closed form).
#include "integrators/branch_watch.hpp"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <functional>
#include <string>

#include "assembly/assemble.hpp"
#include "assembly/plan.hpp"
#include "io/yaml_loader.hpp"
#include "model/model_builder.hpp"

using namespace catena;

namespace {

Model oneBody(bool short_pulse = false) {
  ModelBuilder b(3, "one_body");
  Body body;
  body.name = "ball";
  body.mass = 2.0;
  body.inertia = Vec3(0.1, 0.2, 0.3).asDiagonal();
  const Index k = b.addBody(body);
  if (short_pulse) {
    const Index marker = b.addMarker({"centre", k, Vec3::Zero(), Quat::Identity()});
    MarkerLoad load;
    load.name = "kick";
    load.marker = marker;
    load.force = Vec3(100, 0, 0);
    load.scale = TimeFunction::pulse(1.0, 0.503, 0.504);
    b.addLoad(load);
  }
  return b.finalize();
}

/// Feeds the watch the states v(t) at t = 0, h, 2h, ... up to t_end; returns the first time at
/// which it refused a state (or -1).
double firstRefusal(const Model& m, const std::function<Vec3(double)>& velocity, BranchWatch& watch,
                    double h = 0.01, double t_end = 1.0) {
  State s = initialState(m);
  for (int k = 0; k * h <= t_end + 1e-12; ++k) {
    s.t = k * h;
    s.v.head<3>() = velocity(s.t);
    if (!watch.add(s)) return s.t;
  }
  return -1.0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(smooth_motions_pass) {
  const Model m = oneBody();
  BranchWatch circle(m), fall(m), rest(m), switched_on(m);
  BOOST_TEST(firstRefusal(
                 m, [](double t) { return Vec3(std::cos(3 * t), std::sin(3 * t), 0); }, circle) <
             0.0);
  BOOST_TEST(firstRefusal(
                 m, [](double t) { return Vec3(1, 0, -9.81 * t); }, fall) < 0.0);
  BOOST_TEST(firstRefusal(
                 m, [](double) { return Vec3::Zero(); }, rest) < 0.0);
  // A load switched on at 0.505 s: the acceleration jumps, the velocity does not.
  BOOST_TEST(firstRefusal(
                 m, [](double t) { return Vec3(std::max(0.0, t - 0.505) * 50.0, 0, 1); },
                 switched_on) < 0.0);
  BOOST_TEST(circle.status().ok());
}

BOOST_AUTO_TEST_CASE(a_direction_jump_in_one_interval_is_refused) {
  const Model m = oneBody();
  BranchWatch watch(m);
  // Turning steadily, then the velocity flips to another direction between 0.5 and 0.51 s.
  const double refused = firstRefusal(
      m, [](double t) { return t <= 0.505 ? Vec3(1, 0.1 * t, 0) : Vec3(0, 1, 0.1 * t); }, watch);
  BOOST_TEST(refused == 0.52, boost::test_tools::tolerance(1e-12));  // seen one output late
  BOOST_TEST(!watch.status().ok());
  BOOST_TEST(watch.status().message.find("between t = 0.5 s and 0.51 s") != std::string::npos,
             watch.status().message);
  State s = initialState(m);
  s.t = 2.0;
  BOOST_TEST(!watch.add(s));  // stays refused
}

BOOST_AUTO_TEST_CASE(a_short_load_pulse_may_jump_the_velocity) {
  const Model m = oneBody(true);
  BranchWatch watch(m);
  // The 1 ms, 100 N kick on 2 kg at 0.503 s adds 0.05 m/s to a speed of 0.1 m/s.
  BOOST_TEST(firstRefusal(
                 m, [](double t) { return Vec3(t < 0.503 ? 0.1 : 0.15, 0, 0); }, watch) < 0.0);
}

// A model that cannot move (zero DOF) has a speed of round-off, and its "jumps" are round-off:
// they are not a switch of branch (IDA index 3 stopped the fixed pendulum at 0.03 s). The jump of
// a_direction_jump_in_one_interval_is_refused at 1e-15 m/s passes on a 15 kg ball under gravity.
BOOST_AUTO_TEST_CASE(jumps_of_round_off_size_are_not_judged) {
  ModelBuilder b(3, "heavy_ball");
  b.setGravity(Vec3(0, 0, -9.81));
  Body body;
  body.name = "ball";
  body.mass = 15.0;
  body.inertia = Vec3(0.1, 0.2, 0.3).asDiagonal();
  b.addBody(body);
  const Model m = b.finalize();
  BranchWatch watch(m);
  auto tiny_jump = [](double t) -> Vec3 {
    return 1e-15 * (t <= 0.505 ? Vec3(1, 0.1 * t, 0) : Vec3(0, 1, 0.1 * t));
  };
  BOOST_TEST(firstRefusal(m, tiny_jump, watch) < 0.0);
}

namespace {

/// The double four-bar (cranks j hinged at (j, 0), couplers k between their tops, 1 m bars) on
/// its parallelogram branch, every crank at theta(t) = pi/2 - 2 t: horizontal, a singular
/// configuration, at t = pi/4. Outputs every 0.01 s to 1.5 s, with the velocities of cranks 1
/// and 2 turned back from t_switch on: what a run that took another branch there would output.
/// Returns the first time the watch refused (or -1).
double firstRefusalOfSwitch(BranchWatch& watch, const Model& m, double t_switch) {
  State s = initialState(m);
  for (int k = 0; k <= 150; ++k) {
    s.t = 0.01 * k;
    const double theta = M_PI / 2 - 2.0 * s.t, rate = -2.0, c = std::cos(theta),
                 n = std::sin(theta);
    for (int j = 0; j < 3; ++j) {
      const Index b = m.findBody("crank_0_" + std::to_string(j));
      const double turn = s.t >= t_switch && j > 0 ? -1.0 : 1.0;
      s.q.segment<3>(m.qOffset(b)) << j + 0.5 * c, 0.5 * n, theta;
      s.v.segment<3>(m.vOffset(b)) << -0.5 * n * rate * turn, 0.5 * c * rate * turn, rate * turn;
    }
    for (int j = 0; j < 2; ++j) {
      const Index b = m.findBody("coupler_0_" + std::to_string(j));
      s.q.segment<3>(m.qOffset(b)) << j + 0.5 + c, n, 0.0;
      s.v.segment<3>(m.vOffset(b)) << -n * rate, c * rate, 0.0;
    }
    if (!watch.add(s)) return s.t;
  }
  return -1.0;
}

}  // namespace

// With the assembly plan, a jump is reported only where C_q's pivot falls on the path between
// the outputs: a branch can be left only at a singular configuration. The same turned-back
// cranks are refused next to the crossing with and without the plan, and away from it only
// without (the ratio test alone; the spatial slider-crank's false alarm with outputs 0.1 s apart
// was this case).
BOOST_AUTO_TEST_CASE(with_the_plan_a_jump_needs_a_singular_configuration) {
  const Model m =
      loadMechanismFile(std::string(CATENA_SOURCE_DIR) + "/inputs/double_four_bar.yaml").model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  {  // the states above are the model's: on C = 0
    BranchWatch probe_only(m, plan);
    BOOST_REQUIRE(firstRefusalOfSwitch(probe_only, m, 10.0) < 0.0);
    State s = initialState(m);
    VecX C(m.nc);
    SparseMatrixCSR Cq = makeConstraintMatrix(plan);
    for (const double theta : {1.2, 0.1}) {
      for (int j = 0; j < 3; ++j)
        s.q.segment<3>(m.qOffset(m.findBody("crank_0_" + std::to_string(j))))
            << j + 0.5 * std::cos(theta),
            0.5 * std::sin(theta), theta;
      for (int j = 0; j < 2; ++j)
        s.q.segment<3>(m.qOffset(m.findBody("coupler_0_" + std::to_string(j))))
            << j + 0.5 + std::cos(theta),
            std::sin(theta), 0.0;
      assembleConstraints(m, plan, s.q, 0.0, &C, &Cq);
      BOOST_REQUIRE_SMALL(C.cwiseAbs().maxCoeff(), 1e-14);
    }
  }
  {
    BranchWatch plain(m), probed(m, plan);
    BOOST_TEST(firstRefusalOfSwitch(plain, m, 0.79) > 0.78);
    BOOST_TEST(firstRefusalOfSwitch(probed, m, 0.79) > 0.78);
    BOOST_TEST(probed.status().message.find("between t = 0.78") != std::string::npos,
               probed.status().message);
  }
  {
    BranchWatch plain(m), probed(m, plan);
    BOOST_TEST(firstRefusalOfSwitch(plain, m, 0.305) > 0.3);
    BOOST_TEST(firstRefusalOfSwitch(probed, m, 0.305) < 0.0);
    BOOST_TEST(probed.status().ok());
  }
}
