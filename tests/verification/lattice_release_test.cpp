#define BOOST_TEST_MODULE lattice_release
// The four-bar lattice (model/four_bar_lattice.hpp) released at rest a little off hanging,
// integrated by IDA (integrators/ida_dynamics.hpp), against the small oscillations of the same
// lattice from its L x L Lagrange equations in the levels' angles
// (hangingFourBarLatticeSmallMotion): an independent formulation of the same physics.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "analysis/energy.hpp"
#include "assembly/assemble.hpp"
#include "integrators/ida_dynamics.hpp"
#include "model/four_bar_lattice.hpp"
#include "model/state.hpp"
#include "petsc_fixture.hpp"

using namespace catena;

namespace {

/// Every level's angle from straight down, of the whole model.
std::vector<double> levelAngles(const Model& m, const State& s, int levels) {
  return fourBarLatticeLevelAngles(m, s.q, static_cast<Index>(m.bodies.size()), levels);
}

double maxAbs(const std::vector<double>& x) {
  double m = 0.0;
  for (double v : x) m = std::max(m, std::abs(v));
  return m;
}

}  // namespace

// One level is a pendulum: theta0 cos(2 pi f t) with the closed form's own frequency.
BOOST_AUTO_TEST_CASE(one_level_moves_at_its_frequency) {
  const FourBarLatticeOptions o = leaningFourBarLattice(1, 3, 0.01);
  const double f = hangingFourBarLatticeFrequencies(o, 9.81, 1)[0];
  const std::vector<double> theta0 = fourBarLatticeInitialAngles(o);
  for (double t : {0.0, 0.3, 1.1}) {
    const double expected = theta0[0] * std::cos(2.0 * std::numbers::pi * f * t);
    BOOST_TEST(hangingFourBarLatticeSmallMotion(o, 9.81, theta0, t)[0] == expected,
               boost::test_tools::tolerance(1e-12));
  }
}

// Three levels of two cells from 0.01 rad at most, for 1.5 s (about one period of the slowest
// mode): every level's angle follows the linear theory to its O(theta^3) error. Measured:
// 1.5e-6 rad (2 theta_max^3, 1.7e-4 of the amplitude), and, by hand with this test edited, 8.0
// times that from twice the amplitude: the cube of the nonlinearity, not the integration (rtol
// 1e-10). The bound, 1e-3 of the amplitude, allows 6x; a gravity 2 % off in the linear theory
// (frequencies 1 % off) put the angles 5.8e-4 rad off (by hand), 64x the bound.
BOOST_AUTO_TEST_CASE(released_lattice_follows_the_small_oscillations) {
  const int L = 3;
  const double amplitude = 0.01;
  const FourBarLatticeOptions o = leaningFourBarLattice(L, 2, amplitude);
  const Model m = buildFourBarLattice(o);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  IdaOptions io;
  io.t_end = 1.5;
  io.output_interval = 0.25;
  io.rtol = 1e-10;
  io.atol = 1e-12;
  io.assemble_initial_state = false;  // the leaning lattice is assembled
  const std::vector<double> theta0 = fourBarLatticeInitialAngles(o);
  double worst = 0.0, e0 = 0.0, drift = 0.0;
  bool first = true;
  const DynamicsResult r = integrateIda(m, plan, initialState(m), io, [&](const State& s) {
    const std::vector<double> theta = levelAngles(m, s, L);
    const std::vector<double> linear = hangingFourBarLatticeSmallMotion(o, 9.81, theta0, s.t);
    for (int l = 0; l < L; ++l) worst = std::max(worst, std::abs(theta[l] - linear[l]));
    const double e = computeEnergy(m, plan, s).total();
    if (first) e0 = e;
    first = false;
    drift = std::max(drift, std::abs(e - e0));
    return true;
  });
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST_MESSAGE("lattice " << L << " x 2 released from " << maxAbs(theta0) << " rad: "
                                << r.stats.steps << " steps; angles off the linear theory by "
                                << worst << " rad; energy drift " << drift << " J");
  BOOST_TEST(worst <= 1e-3 * maxAbs(theta0), "angles off the linear theory by " << worst);
  // It moves: the slowest mode's swing is of the amplitude's order.
  const std::vector<double> end = levelAngles(m, r.state, L);
  BOOST_TEST(std::abs(end[0] - theta0[0]) > 0.1 * amplitude);
  // Energy (no damping) holds to the integration error: rtol of the potential energy's swing,
  // m g h theta^2 ~ 1e-3 J.
  BOOST_TEST(drift <= 1e-9, "energy drift " << drift << " J");
}

// Released at rest in the shape of its slowest mode (hangingFourBarLatticeLowestMode), four
// levels keep that shape and swing at that mode's frequency: over one period every level's
// angle is A shape_l cos(2 pi f1 t), within 1e-3 of the amplitude A = 0.005 rad (the O(theta^3)
// error of the linear theory; measured 8.0e-6 of A). A wrong shape mixes in faster modes: one
// level's angle 1 % off the shape put the motion 8.8e-3 of A off (by hand, this test edited).
BOOST_AUTO_TEST_CASE(released_in_the_lowest_mode_shape_it_swings_in_that_mode) {
  const int L = 4;
  const double A = 0.005;
  FourBarLatticeOptions o = leaningFourBarLattice(L, 2, 0.0);
  const std::vector<double> shape = hangingFourBarLatticeLowestMode(o, 9.81);
  BOOST_TEST(*std::max_element(shape.begin(), shape.end()) == 1.0);
  for (int l = 0; l < L; ++l) o.level_angles[l] = -0.5 * std::numbers::pi + A * shape[l];
  const double f1 = hangingFourBarLatticeFrequencies(o, 9.81, 1)[0];
  const Model m = buildFourBarLattice(o);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  IdaOptions io;
  io.t_end = 1.0 / f1;
  io.output_interval = io.t_end / 20.0;
  io.rtol = 1e-10;
  io.atol = 1e-12;
  io.assemble_initial_state = false;
  double worst = 0.0;
  const DynamicsResult r = integrateIda(m, plan, initialState(m), io, [&](const State& s) {
    const std::vector<double> theta = levelAngles(m, s, L);
    const double c = std::cos(2.0 * std::numbers::pi * f1 * s.t);
    for (int l = 0; l < L; ++l) worst = std::max(worst, std::abs(theta[l] - A * shape[l] * c));
    return true;
  });
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST_MESSAGE("lattice " << L << " x 2 released in its slowest mode (" << f1
                                << " Hz): off A shape cos(2 pi f1 t) by " << worst / A
                                << " of the amplitude over one period");
  BOOST_TEST(worst <= 1e-3 * A);
}
