#define BOOST_TEST_MODULE natural_kinematics_run
// The kinematic run of mechanisms without mass (natural_kinematics_run.hpp): the closed-chain
// robot of inputs/natural/ under its six drivers (drivers exact, C = 0, C_q v = 0, and the
// velocities equal to central differences of the positions — an independent check of the
// velocity solve); a rod driven out of its reach stops at the singular configuration with a
// reason; drivers that over-determine the mechanism are refused.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <sstream>
#include <vector>

#include "formulations/natural/natural_kinematics_run.hpp"
#include "formulations/natural/natural_mechanism.hpp"
#include "formulations/natural/natural_yaml.hpp"

using namespace catena;
using namespace catena::natural;

namespace {

struct Recorded {
  std::vector<double> t;
  std::vector<VecX> q, v;
  NaturalKinematicsResult result;
};

Recorded run(const NaturalInput& in, double t_end, double interval) {
  Recorded r;
  NaturalKinematicsOptions o;
  o.t_end = t_end;
  o.output_interval = interval;
  r.result =
      runNaturalKinematics(in.model, in.problem, o, [&r](double t, const VecX& q, const VecX& v) {
        r.t.push_back(t);
        r.q.push_back(q);
        r.v.push_back(v);
        return true;
      });
  return r;
}

/// A massless rod OA (|A| = L = 2) with A.x driven at 1 m/s from A = (0, -2).
NaturalInput drivenRod(const std::string& fixed) {
  std::istringstream in(
      "formulation: natural\ndimension: 2\nfixed:\n  O: {point: [0, 0]}\nmoving:\n  A: point\n"
      "bodies:\n  OA: {basis: [O, A], geometry: [[2]]}\nproblem:\n  t_end: 3\n"
      "  positions: {A: [0, -2]}\n  velocities: {A: [1, 0]}\n  fixed: " +
      fixed + "\n");
  return readNaturalInput(in, "rod.yaml");
}

}  // namespace

BOOST_AUTO_TEST_CASE(robot_follows_its_drivers_on_the_constraint_manifold) {
  const NaturalInput in =
      loadNaturalInput(std::string(CATENA_SOURCE_DIR) + "/inputs/natural/closed_chain_robot.yaml");
  BOOST_TEST_REQUIRE(isMassless(in.model));
  const double h = 1e-3;
  const Recorded r = run(in, 1.0, h);
  BOOST_TEST_REQUIRE(r.result.status.ok(), r.result.status.message);
  BOOST_TEST(r.result.stats.rank == 12);
  BOOST_TEST(r.result.stats.free_dof == 0);
  BOOST_TEST(r.t.size() == 1001u);
  double driver = 0.0, c = 0.0, cv = 0.0, fd = 0.0, vmax = 0.0;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    VecX C;
    MatX C_q;
    computeNaturalConstraints(in.model, r.q[k], C, C_q);
    c = std::max(c, C.lpNorm<Eigen::Infinity>());
    cv = std::max(cv, (C_q * r.v[k]).lpNorm<Eigen::Infinity>());
    for (Index i = 0; i < in.model.nq; ++i)
      if (in.problem.fixed[static_cast<std::size_t>(i)])
        driver =
            std::max(driver, std::abs(r.q[k](i) - (in.problem.q0(i) + in.problem.v0(i) * r.t[k])));
    vmax = std::max(vmax, r.v[k].lpNorm<Eigen::Infinity>());
    if (k > 0 && k + 1 < r.t.size())
      fd = std::max(fd, ((r.q[k + 1] - r.q[k - 1]) / (2 * h) - r.v[k]).lpNorm<Eigen::Infinity>());
  }
  BOOST_TEST_MESSAGE("robot: |driver error| " << driver << ", max |C| " << c << ", |C_q v| " << cv
                                              << ", |v - central difference| " << fd
                                              << " (|v| up to " << vmax << ")");
  BOOST_TEST(driver < 1e-14);
  BOOST_TEST(c < 1e-12);
  BOOST_TEST(cv < 1e-13);
  // Central differences err by h^2 |q'''| / 6: |q'''| ~ 1 here, so ~1e-7; 1e-5 is far below
  // any error of the velocity solve (a wrong sign or column would be O(|v|) ~ 1).
  BOOST_TEST(fd < 1e-5);
  BOOST_TEST(vmax > 0.1);
}

BOOST_AUTO_TEST_CASE(rod_driven_out_of_reach_stops_at_the_singular_configuration) {
  const Recorded r = run(drivenRod("[A.x]"), 3.0, 0.01);
  BOOST_TEST(!r.result.status.ok());
  BOOST_TEST_MESSAGE(r.result.status.message);
  // A.x = t reaches L = 2 at t = 2, where C_q = 2 (A.x, A.y) loses its A.y column.
  BOOST_TEST(r.result.t > 1.9);
  BOOST_TEST(r.result.t < 2.05);
  BOOST_TEST(r.t.back() <= 2.0 + 1e-9);
  // Up to there the rod stayed on its circle and its tip velocity tangent to it.
  BOOST_TEST(std::abs(r.q.back().norm() - 2.0) < 1e-12);
}

BOOST_AUTO_TEST_CASE(overdetermining_drivers_are_refused) {
  const Recorded r = run(drivenRod("[A]"), 1.0, 0.01);
  BOOST_TEST((r.result.status.code == Status::Code::kInvalidInput));
  BOOST_TEST(r.result.status.message.find("over-determine") != std::string::npos,
             r.result.status.message);
  BOOST_TEST(r.t.empty());
}
