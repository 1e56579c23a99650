#define BOOST_TEST_MODULE branch_watch
// The velocity-jump watch of integrators/branch_watch.hpp on synthetic trajectories of one body:
// smooth motions, a load switched on, a short load pulse, and a jump of the velocity's
// direction within one output interval (what a switch of branch looks like).
#include "integrators/branch_watch.hpp"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <functional>

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
