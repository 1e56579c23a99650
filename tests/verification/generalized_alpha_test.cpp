/// @file generalized_alpha_test.cpp
/// Lie-group generalized-alpha against closed forms and independent references: the pendulum's
/// period (elliptic integral) with second-order convergence in h; the spatial pendulum and the
/// rotation-matrix paper's double pendulum against their minimal-coordinate ODEs integrated by
/// ARKODE (tests/support/reference_odes); energy of the spin top, index-3 constraint drift, the
/// effect of K_c on Newton, and failures that are reported, never accepted.
#define BOOST_TEST_MODULE generalized_alpha
#include <boost/test/unit_test.hpp>

#include "integrators/generalized_alpha.hpp"

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "analysis/energy.hpp"
#include "analysis/reactions.hpp"
#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "io/yaml_loader.hpp"
#include "math/rotation.hpp"
#include "model/generators.hpp"
#include "pendulum_model.hpp"
#include "petsc_fixture.hpp"
#include "reference_odes.hpp"

using namespace catena;

namespace {

const std::string kInputs = std::string(CATENA_SOURCE_DIR) + "/inputs/";
constexpr double kL = 4.0, kG = 9.81;

/// Closed-form period of the pendulum released at rest from theta0.
double pendulumPeriod(double theta0) {
  return 4.0 * std::sqrt(kL / kG) * std::comp_ellint_1(std::sin(0.5 * theta0));
}

/// The period of inputs/pendulum.yaml (30 deg) measured from the first and third upward
/// crossings of x = 0 by the bob, linearly interpolated (x'' = 0 there, so the interpolation
/// error is O(h^3)). The run stops at the third crossing (1.25 periods): at rho_inf 0.99 and
/// h = T / 400 the accelerations grow from about 3.7 s on and the run blows up at 5.2 s (with
/// full Newton too, at 4.9 s), which the energy check reports (docs/dynamics-generalized-alpha.md,
/// known defect).
double measuredPeriod(double h, double rho_inf, DynamicsStats* stats = nullptr,
                      double error_tolerance = 0.0) {
  const Model m = loadMechanismFile(kInputs + "pendulum.yaml").model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  GeneralizedAlphaOptions o;
  o.step = h;
  o.rho_inf = rho_inf;
  o.error_tolerance = error_tolerance;
  o.t_end = 1.3 * pendulumPeriod(M_PI / 6);
  std::vector<double> crossings;
  double t_prev = 0.0, x_prev = 0.0;
  const DynamicsResult r =
      integrateGeneralizedAlpha(m, plan, initialState(m), o, [&](const State& s) {
        const double x = s.q(0);
        if (s.t > 0.0 && x_prev < 0.0 && x >= 0.0)
          crossings.push_back(t_prev + (s.t - t_prev) * (-x_prev) / (x - x_prev));
        if (s.t > 0.0 && x_prev > 0.0 && x <= 0.0)
          crossings.push_back(t_prev + (s.t - t_prev) * x_prev / (x_prev - x));
        t_prev = s.t;
        x_prev = x;
        return crossings.size() < 3u;
      });
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_REQUIRE(crossings.size() >= 3u);
  if (stats) *stats = r.stats;
  return crossings[2] - crossings[0];
}

/// The catenary chain of `links` links.
Model chainOf(int links) {
  CatenaryChainOptions co;
  co.links = links;
  return buildCatenaryChain(co);
}

/// The catenary chain of `links` links, released at rest from its 'V', with its plan.
struct ReleasedChain {
  Model m;
  AssemblyPlan plan;
  State s0;
  explicit ReleasedChain(int links)
      : m(chainOf(links)), plan(buildAssemblyPlan(m)), s0(initialState(m)) {}
};

}  // namespace

// Second order: the period error falls by 4 when h halves, and the Richardson extrapolate
// agrees with the elliptic-integral period.
BOOST_AUTO_TEST_CASE(pendulum_period_converges_with_order_two) {
  const double T = pendulumPeriod(M_PI / 6);
  for (double rho : {0.99, 0.6}) {
    std::vector<double> error;
    double previous = 0.0, extrapolated = 0.0;
    for (int k = 0; k < 3; ++k) {
      const double h = T / (100.0 * std::pow(2.0, k));
      const double period = measuredPeriod(h, rho);
      error.push_back(std::abs(period - T) / T);
      if (k > 0) extrapolated = period + (period - previous) / 3.0;
      previous = period;
    }
    const double order = std::log2(error[1] / error[2]);
    BOOST_TEST_MESSAGE("rho_inf " << rho << ": period errors " << error[0] << ", " << error[1]
                                  << ", " << error[2] << "; order " << order
                                  << "; Richardson error " << std::abs(extrapolated - T) / T);
    BOOST_TEST(order > 1.9);
    BOOST_TEST(order < 2.1);
    BOOST_TEST(std::abs(extrapolated - T) / T < 1e-3 * error[2]);
  }
}

// With a local error tolerance the step adapts: from a first step of a quarter period the
// estimate rejects steps, and a tighter tolerance gives a more accurate period, at the cost the
// O(h^3) local error predicts (steps ~ tol^(-1/3)).
BOOST_AUTO_TEST_CASE(adaptive_step_follows_the_error_tolerance) {
  const double T = pendulumPeriod(M_PI / 6);
  double error[2];
  long steps[2];
  for (int k = 0; k < 2; ++k) {
    DynamicsStats stats;
    const double tol = k == 0 ? 1e-6 : 1e-8;
    error[k] = std::abs(measuredPeriod(T / 4, 0.8, &stats, tol) - T) / T;
    steps[k] = stats.steps;
    BOOST_TEST_MESSAGE("tolerance " << tol << ": period error " << error[k] << ", " << stats.steps
                                    << " steps, " << stats.error_test_failures
                                    << " rejected by the error test");
    BOOST_TEST(stats.error_test_failures > 0);
  }
  BOOST_TEST(error[1] < 0.1 * error[0]);
  const double ratio = static_cast<double>(steps[1]) / static_cast<double>(steps[0]);
  BOOST_TEST(ratio > 0.7 * std::cbrt(100.0));
  BOOST_TEST(ratio < 1.5 * std::cbrt(100.0));
}

// The reported reactions get better with the tolerance, never worse (until 2026-11-27 the
// index-3 scheme's own multipliers were reported: the pendulum's hinge force was 0.5 N off at
// 1e-6 against 0.008 N at 1e-5). Point mass m on a massless rod released at rest from theta0:
// the rod force is m g (3 cos theta - 2 cos theta0), here at the integrated theta, so the
// error holds the trajectory's (energy) error and the multipliers' own.
BOOST_AUTO_TEST_CASE(pendulum_reactions_improve_with_the_tolerance) {
  const double theta0 = M_PI / 3;
  const Model m = test::planarPendulum(kL, theta0);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  double previous = INFINITY;
  for (double tol : {1e-4, 1e-6, 1e-8}) {
    GeneralizedAlphaOptions o;
    o.error_tolerance = tol;
    o.t_end = 3.0;
    o.output_interval = 0.01;
    double worst = 0.0;
    const DynamicsResult r =
        integrateGeneralizedAlpha(m, plan, initialState(m), o, [&](const State& s) {
          const double theta = std::atan2(s.q(0), -s.q(1));
          const double tension = kG * (3.0 * std::cos(theta) - 2.0 * std::cos(theta0));
          const Vec3 f = computeJointReactions(m, plan, s.q, s.t, s.lambda)[0].force_world;
          worst = std::max(worst, std::abs(f.head<2>().norm() - tension));
          return true;
        });
    BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
    BOOST_TEST_MESSAGE("tolerance " << tol << ": rod force off by " << worst << " N (of m g = "
                                    << kG << " N), " << r.stats.steps << " steps");
    BOOST_TEST(worst < previous);
    previous = worst;
  }
  BOOST_TEST(previous < 1e-4 * kG);
}

// The index-3 scheme satisfies C(q) = 0 at every step to the Newton tolerance, and the spin
// top's energy error is that of an (at least) second-order method: it falls by 4 or more when
// h halves (rho_inf < 1 damps only frequencies near 1/h; the top's motion is slow). Not at
// rho_inf = 0.99: there the top's accelerations grow exponentially from t ~ 1 s and the run
// ends in garbage by t = 5-10 s whatever the predictor (docs/dynamics-generalized-alpha.md).
BOOST_AUTO_TEST_CASE(spin_top_energy_and_constraint) {
  const Model m = loadMechanismFile(kInputs + "spin_top.yaml").model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  VecX C(m.nc);
  const double ls = lengthScale(m);
  const double scale = m.bodies[0].mass * 9.81 * 1.0;  // m g l: the energy scale, J
  for (double rho : {0.9, 0.6}) {
    double drift[2];
    for (int k = 0; k < 2; ++k) {
      GeneralizedAlphaOptions o;
      o.step = 2e-3 / (1 << k);
      o.error_tolerance = 0.0;  // fixed step: the energy error's order is the point
      o.t_end = 5.0;
      o.output_interval = 0.02;
      o.rho_inf = rho;
      const double e0 = computeEnergy(m, plan, initialState(m)).total();
      double worst = 0.0, worst_c = 0.0;
      const DynamicsResult r =
          integrateGeneralizedAlpha(m, plan, initialState(m), o, [&](const State& s) {
            worst = std::max(worst, std::abs(computeEnergy(m, plan, s).total() - e0));
            assembleConstraints(m, plan, s.q, s.t, &C, nullptr);
            worst_c = std::max(worst_c, C.cwiseAbs().maxCoeff() / ls);
            return true;
          });
      BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
      drift[k] = worst / scale;
      BOOST_TEST_MESSAGE("spin top, rho_inf " << rho << ", h " << o.step << ": energy error "
                                              << drift[k] << " of m g l, |C| / l " << worst_c);
      BOOST_TEST(worst_c < 1e-9);
    }
    BOOST_TEST(drift[0] / drift[1] > 3.5);  // at least second order (0.99: 15, transients)
    BOOST_TEST(drift[1] < 1e-6);
  }
}

/// Largest distance (m) between catena's trajectory of body 0 and reference positions at the
/// same output times.
template <typename Reference>
double trajectoryError(const Model& m, double h, double t_end, double interval,
                       const Reference& reference) {
  GeneralizedAlphaOptions o;
  o.step = h;
  o.error_tolerance = 0.0;  // fixed step: the convergence order is the point
  o.t_end = t_end;
  o.output_interval = interval;
  double worst = 0.0;
  std::size_t k = 0;
  const DynamicsResult r =
      integrateGeneralizedAlpha(m, buildAssemblyPlan(m), initialState(m), o, [&](const State& s) {
        worst = std::max(worst, (reference(k++) - s.q.segment<3>(0)).norm());
        return true;
      });
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  return worst;
}

// Issue case: 1 kg, l = 0.08 m, r0 = (0.08, 0, 0), v0 = 0.7895 m/s along y, gravity -z.
BOOST_AUTO_TEST_CASE(spatial_pendulum_matches_the_spherical_coordinate_reference) {
  const Model m = loadMechanismFile(kInputs + "spatial_pendulum.yaml").model;
  const double t_end = 1.0, interval = 0.01;
  std::vector<double> times;
  for (int k = 0; k <= 100; ++k) times.push_back(k * interval);
  const auto ref =
      reference::sphericalPendulum(1.0, 0.08, 9.81, Vec3(0.08, 0, 0), Vec3(0, 0.7895, 0), times);
  double error[2];
  for (int k = 0; k < 2; ++k)
    error[k] = trajectoryError(m, 2e-4 / (1 << k), t_end, interval,
                               [&](std::size_t i) -> Vec3 { return ref.r.col(i); });
  BOOST_TEST_MESSAGE("spatial pendulum, 1 s: position error " << error[0] << " m (h = 2e-4), "
                                                              << error[1] << " m (h = 1e-4)");
  BOOST_TEST(error[0] / error[1] > 3.5);  // second order
  BOOST_TEST(error[1] < 1e-5 * 0.08);
}

// The rotation-matrix paper's double pendulum (two bars on spherical joints, 20 and 10 deg, at
// rest) against its two-angle equations (26): the centres of mass agree and stay in the plane.
BOOST_AUTO_TEST_CASE(double_pendulum_matches_the_two_angle_reference) {
  const Model m = loadMechanismFile(kInputs + "double_pendulum.yaml").model;
  const double t_end = 2.0, interval = 0.01, deg = M_PI / 180.0;
  std::vector<double> times;
  for (int k = 0; k <= 200; ++k) times.push_back(k * interval);
  const auto ref =
      reference::doublePendulumTwoAngle(0.108, 0.20, 0.02, 9.81, 20 * deg, 10 * deg, 0, 0, times);
  GeneralizedAlphaOptions o;
  o.step = 1e-4;
  o.error_tolerance = 0.0;
  o.t_end = t_end;
  o.output_interval = interval;
  double worst = 0.0, out_of_plane = 0.0;
  std::size_t k = 0;
  const DynamicsResult r =
      integrateGeneralizedAlpha(m, buildAssemblyPlan(m), initialState(m), o, [&](const State& s) {
        const auto p = reference::doublePendulumPoints(0.20, ref.phi(k), ref.psi(k));
        ++k;
        for (int b = 0; b < 2; ++b) {
          const Vec3 g = s.q.segment<3>(m.qOffset(b));
          const Eigen::Vector2d expected = b == 0 ? p.g1 : p.g2;
          worst = std::max(worst, (g.head<2>() - expected).norm());
          out_of_plane = std::max(out_of_plane, std::abs(g.z()));
        }
        return true;
      });
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST_MESSAGE("double pendulum, 2 s, h = 1e-4: centre-of-mass error "
                     << worst << " m, out of plane " << out_of_plane << " m");
  BOOST_TEST(worst < 1e-5 * 0.2);
  BOOST_TEST(out_of_plane < 1e-12);
}

// Newton with K_c in the iteration matrix converges in fewer iterations than without it (the
// paper's point for implicit integration), with full Newton and with modified Newton (the
// default). Full and modified Newton, with K_c or without, give the same motion, and
// modified Newton factors far less often than full Newton.
BOOST_AUTO_TEST_CASE(constraint_stiffness_speeds_up_newton) {
  const Model m = loadMechanismFile(kInputs + "pendulum.yaml").model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  State end[2][2];
  DynamicsStats stats[2][2];  // [modified][with K_c]
  for (int modified = 0; modified < 2; ++modified)
    for (int with = 0; with < 2; ++with) {
      GeneralizedAlphaOptions o;
      o.step = 0.05;
      o.error_tolerance = 0.0;  // the same steps for every variant
      o.t_end = 2.0;
      o.constraint_stiffness = with == 1;
      o.reuse_iteration_matrix = modified == 1;
      const DynamicsResult r = integrateGeneralizedAlpha(m, plan, initialState(m), o, nullptr);
      BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
      end[modified][with] = r.state;
      stats[modified][with] = r.stats;
      BOOST_TEST_MESSAGE("pendulum, h = 0.05 s, "
                         << (modified ? "modified" : "full") << " Newton, K_c "
                         << (with ? "on" : "off") << ": " << r.stats.newton_iterations
                         << " iterations, " << r.stats.factorizations << " factorizations, "
                         << r.stats.steps << " steps");
    }
  BOOST_TEST(stats[0][1].newton_iterations < stats[0][0].newton_iterations);
  BOOST_TEST(stats[1][1].newton_iterations < stats[1][0].newton_iterations);
  BOOST_TEST(2 * stats[1][1].factorizations < stats[0][1].factorizations);
  for (int modified = 0; modified < 2; ++modified)
    for (int with = 0; with < 2; ++with)
      BOOST_TEST((end[modified][with].q - end[0][1].q).cwiseAbs().maxCoeff() < 1e-8);
}

// Output times do not shrink the steps: the run lands on them in equal steps, not with a sliver
// of a step before each (which jolted the algorithmic acceleration and its error estimate: on the
// chain released from its V with outputs every 0.03 s, 200 steps and 34 rejections instead of
// 59, and the energy off by 2.6 J; at N = 1000 the run exploded). The chain at the error
// tolerance the Simbody comparison used (3e-4, steps up to 0.05 s), outputs every 0.03 s
// against outputs only at the end.
BOOST_AUTO_TEST_CASE(output_times_do_not_shrink_the_steps) {
  std::ifstream in(kInputs + "catenary_chain.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = text.find("links: 20");
  BOOST_REQUIRE(at != std::string::npos);
  text.replace(at, 9, "links: 100");
  const Model m = loadMechanismString(text, "chain100").model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const State s0 = initialState(m);
  const double e0 = computeEnergy(m, plan, s0).total();
  long steps[2];
  double energy_change[2];
  for (int k = 0; k < 2; ++k) {
    GeneralizedAlphaOptions o;
    o.step = 0.05;
    o.error_tolerance = 3e-4;
    o.t_end = 1.0;
    o.output_interval = k == 0 ? 0.03 : 1.0;
    long outputs = 0;
    const DynamicsResult r = integrateGeneralizedAlpha(m, plan, s0, o, [&](const State&) {
      ++outputs;
      return true;
    });
    BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
    steps[k] = r.stats.steps;
    energy_change[k] = std::abs(computeEnergy(m, plan, r.state).total() - e0);
    BOOST_TEST_MESSAGE("chain N = 100, outputs every "
                       << o.output_interval << " s: " << outputs << " outputs, " << r.stats.steps
                       << " steps (" << r.stats.rejected_steps << " rejected), |dE| "
                       << energy_change[k] << " J");
  }
  // At most one extra step per output time (34 of them), and no worse an energy.
  BOOST_TEST(steps[0] <= steps[1] + 34);
  BOOST_TEST(energy_change[0] <= 2.0 * energy_change[1] + 0.05);
}

// The local error estimate must not read the step-to-step oscillation of the accelerations as
// an error. The bottom of the 'V' of a fine chain is a kink whose links' rotations oscillate
// from step to step (damped by rho_inf per step); an estimate from this step's change of a
// alone is then about the oscillation's amplitude, whatever h, and the controller cut the
// 1500-link chain at tolerance 1e-4 to as many steps as at 3e-5 (66 and 65 to 0.3 s, this test
// run by hand on the former estimate; on 3000 links 941 steps where 3e-4 took 66,
// benchmarks/results/chain_vs_simbody.md). The cost must grow as the tolerance tightens, and
// the error with it fall.
BOOST_AUTO_TEST_CASE(fine_chain_steps_follow_the_tolerance) {
  const ReleasedChain chain(1500);
  const Model& m = chain.m;
  const AssemblyPlan& plan = chain.plan;
  const State& s0 = chain.s0;
  const double tolerances[3] = {1e-4, 3e-5, 1e-6};
  long steps[3];
  State end[3];
  for (int k = 0; k < 3; ++k) {
    GeneralizedAlphaOptions o;
    o.step = 0.05;
    o.error_tolerance = tolerances[k];
    o.t_end = 0.3;
    o.output_interval = o.t_end;
    const DynamicsResult r = integrateGeneralizedAlpha(m, plan, s0, o, nullptr);
    BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
    steps[k] = r.stats.steps;
    end[k] = r.state;
    BOOST_TEST_MESSAGE("chain N = 1500 to 0.3 s, tolerance "
                       << tolerances[k] << ": " << r.stats.steps << " steps ("
                       << r.stats.rejected_steps << " rejected)");
  }
  // The largest distance of a body's centre from the tightest run's, m.
  auto distance = [&](const State& s) {
    double d = 0.0;
    for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b)
      d = std::max(d, (s.q.segment<3>(m.qOffset(b)) - end[2].q.segment<3>(m.qOffset(b))).norm());
    return d;
  };
  const double error[2] = {distance(end[0]), distance(end[1])};
  BOOST_TEST_MESSAGE("largest distance from the 1e-6 run: " << error[0] << " m at 1e-4, "
                                                            << error[1] << " m at 3e-5");
  // O(h^3) local errors: steps ~ tol^(-1/3), 1.49x for this factor of 3.3.
  BOOST_TEST(steps[1] > 1.2 * steps[0]);
  BOOST_TEST(error[1] < 0.7 * error[0]);
}

// With little numerical damping (rho_inf = 0.9) the algorithmic acceleration of a released chain
// rings from step to step; the averaged error estimate cancels that at a steady step but not
// after the step grows, and growth judged from it alone was rejected at once, again and again
// (400 links to 0.3 s at 1e-6: 91 of 212 steps rejected; 600 links: 222 of 336). The growth is
// now bounded by the unaveraged estimate too (kRawErrorHeadroom): few rejections, and the end
// state as close to a tighter run as the run at rho_inf = 0.5 with its same tolerance.
BOOST_AUTO_TEST_CASE(light_damping_does_not_reject_most_steps) {
  const ReleasedChain chain(400);
  const auto run = [&](double rho_inf, double tolerance) {
    GeneralizedAlphaOptions o;
    o.rho_inf = rho_inf;
    o.error_tolerance = tolerance;
    o.t_end = 0.3;
    o.output_interval = o.t_end;
    const DynamicsResult r = integrateGeneralizedAlpha(chain.m, chain.plan, chain.s0, o, nullptr);
    BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
    BOOST_TEST_MESSAGE("chain N = 400 to 0.3 s, rho_inf "
                       << rho_inf << ", tolerance " << tolerance << ": " << r.stats.steps
                       << " steps (" << r.stats.rejected_steps << " rejected)");
    return r;
  };
  const DynamicsResult light = run(0.9, 1e-6), usual = run(0.5, 1e-6), tight = run(0.5, 1e-9);
  BOOST_TEST(light.stats.rejected_steps <= light.stats.steps / 20);
  const auto distance = [&](const State& s) {
    double d = 0.0;
    for (Index b = 0; b < static_cast<Index>(chain.m.bodies.size()); ++b)
      d = std::max(
          d, (s.q.segment<3>(chain.m.qOffset(b)) - tight.state.q.segment<3>(chain.m.qOffset(b)))
                 .norm());
    return d;
  };
  BOOST_TEST_MESSAGE("largest distance from the rho_inf 0.5, 1e-9 run: "
                     << distance(light.state) << " m (rho_inf 0.9), " << distance(usual.state)
                     << " m (0.5)");
  BOOST_TEST(distance(light.state) <= 3.0 * distance(usual.state));
}

// A step whose Newton iteration does not converge is cut, and when it cannot be cut further the
// run stops with a report that names the time, the step and the worst constraints.
BOOST_AUTO_TEST_CASE(newton_failure_is_reported) {
  const Model m = loadMechanismFile(kInputs + "pendulum.yaml").model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  GeneralizedAlphaOptions o;
  o.step = 0.01;
  o.error_tolerance = 0.0;
  o.t_end = 1.0;
  // One correction cannot reach 1e-15 from any predictor on this nonlinear problem.
  o.max_newton_iterations = 1;
  o.newton_tolerance = 1e-15;
  o.min_step = 1e-3;
  const DynamicsResult r = integrateGeneralizedAlpha(m, plan, initialState(m), o, nullptr);
  BOOST_TEST(!r.status.ok());
  BOOST_TEST(r.status.message.find("did not converge at t = 0") != std::string::npos,
             r.status.message);
  BOOST_TEST(!r.worst_rows.empty());
  BOOST_TEST(r.stats.rejected_steps >= 3);
  BOOST_TEST(r.stats.steps == 0);
}

// Generalized-alpha with rho_inf < 1 only dissipates energy, so a conservative model whose
// energy grows is being integrated unstably: the run stops with a report instead of running on.
// The 100-link chain released from its V at rho_inf 0.8 and fixed 10 ms steps is stopped at
// t = 0.675 s; without the check it runs on for 366 steps to t = 0.80 s, where Newton fails with
// the energy at 2.6e15 J (the 1000-link chain at rho_inf 0.6 took 5 minutes to get there).
BOOST_AUTO_TEST_CASE(energy_growth_stops_an_unstable_run) {
  const ReleasedChain chain(100);
  const Model& m = chain.m;
  const AssemblyPlan& plan = chain.plan;
  const State& s0 = chain.s0;
  const double e0 = computeEnergy(m, plan, s0).total();
  auto run = [&](double rho_inf, double limit) {
    GeneralizedAlphaOptions o;
    o.rho_inf = rho_inf;
    o.error_tolerance = 0.0;
    o.step = 0.01;
    o.t_end = 1.0;
    o.energy_growth_limit = limit;
    const DynamicsResult r = integrateGeneralizedAlpha(m, plan, s0, o, nullptr);
    BOOST_TEST_MESSAGE("chain N = 100, rho_inf " << rho_inf << ", limit " << limit
                                                 << ": t = " << r.state.t << " s, " << r.stats.steps
                                                 << " steps, energy change "
                                                 << computeEnergy(m, plan, r.state).total() - e0
                                                 << " J: " << r.status.message);
    return r;
  };
  const DynamicsResult unstable = run(0.8, 0.5);
  BOOST_TEST(!unstable.status.ok());
  BOOST_TEST(unstable.status.message.find("unstable: the energy") != std::string::npos,
             unstable.status.message);
  BOOST_TEST(computeEnergy(m, plan, unstable.state).total() > e0);
  // The check is what stopped it: without it the run goes on.
  const DynamicsResult unchecked = run(0.8, 0.0);
  BOOST_TEST(unchecked.state.t > unstable.state.t);
  BOOST_TEST(unchecked.stats.steps > unstable.stats.steps);
  // At rho_inf 0.5 the same steps are stable, and the check lets them through.
  const DynamicsResult stable = run(0.5, 0.5);
  BOOST_REQUIRE_MESSAGE(stable.status.ok(), stable.status.message);
  BOOST_TEST(computeEnergy(m, plan, stable.state).total() <= e0);
}

BOOST_AUTO_TEST_CASE(undamped_rho_inf_is_refused) {
  const Model m = loadMechanismFile(kInputs + "pendulum.yaml").model;
  GeneralizedAlphaOptions o;
  o.rho_inf = 1.0;
  BOOST_CHECK_THROW(integrateGeneralizedAlpha(m, buildAssemblyPlan(m), initialState(m), o, nullptr),
                    Error);
}

// Newton stops where its tolerances say: the configuration to the Newton tolerance, the
// multipliers to 10 (1 - rho_inf) times it (relative to the largest), |C| by default to the
// Newton tolerance but at most 1e-8 of the length scale. Looser than the former force-residual
// test, which cost the chain released from the V about a quarter more iterations
// (benchmarks/results/chain_vs_simbody_large.md). Checked against the same fixed steps with
// everything converged to 1e-12. Without the multipliers' test the multipliers at the end
// differ by 8.6e-6 (hand run), more than the 5e-6 promised.
BOOST_AUTO_TEST_CASE(newton_stops_at_its_tolerances) {
  const ReleasedChain chain(200);
  const Model& m = chain.m;
  const AssemblyPlan& plan = chain.plan;
  const State& s0 = chain.s0;
  const double ls = lengthScale(m);
  const VecX weights = displacementWeights(m, ls);
  State end[2];
  long iterations[2];
  double worst_constraint = 0.0;
  for (int k = 0; k < 2; ++k) {
    GeneralizedAlphaOptions o;
    o.error_tolerance = 0.0;  // the same steps in both runs
    o.step = 0.005;
    o.t_end = 0.2;
    o.newton_tolerance = k == 0 ? 1e-6 : 1e-12;
    if (k == 1) o.constraint_tolerance = 1e-12;
    const DynamicsResult r = integrateGeneralizedAlpha(m, plan, s0, o, [&](const State& s) {
      if (k == 0) {
        VecX C(m.nc);
        assembleConstraints(m, plan, s.q, s.t, &C, nullptr);
        worst_constraint = std::max(worst_constraint, C.cwiseAbs().maxCoeff() / ls);
      }
      return true;
    });
    BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
    end[k] = r.state;
    iterations[k] = r.stats.newton_iterations;
    BOOST_TEST_MESSAGE("chain N = 200, Newton tolerance "
                       << o.newton_tolerance << ": " << r.stats.steps << " steps, "
                       << r.stats.newton_iterations << " iterations, " << r.stats.factorizations
                       << " factorizations");
  }
  VecX dx(m.nv);
  for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b) {
    const Index qo = m.qOffset(b), vo = m.vOffset(b);
    dx.segment<3>(vo) = end[0].q.segment<3>(qo) - end[1].q.segment<3>(qo);
    const Quat r0(end[0].q(qo + 3), end[0].q(qo + 4), end[0].q(qo + 5), end[0].q(qo + 6));
    const Quat r1(end[1].q(qo + 3), end[1].q(qo + 4), end[1].q(qo + 5), end[1].q(qo + 6));
    dx.segment<3>(vo + 3) = quatLog(r1.conjugate() * r0);
  }
  const double configuration = weightedMaxNorm(weights, dx);
  const double multipliers =
      (end[0].lambda - end[1].lambda).cwiseAbs().maxCoeff() / end[1].lambda.cwiseAbs().maxCoeff();
  BOOST_TEST_MESSAGE("at 0.2 s: configuration " << configuration << ", multipliers " << multipliers
                                                << ", worst |C| / l " << worst_constraint);
  BOOST_TEST(configuration <= 1e-6);
  BOOST_TEST(multipliers <= 10.0 * (1.0 - GeneralizedAlphaOptions{}.rho_inf) * 1e-6);  // 5e-6
  BOOST_TEST(worst_constraint <= 1e-8);
  BOOST_TEST(iterations[0] < iterations[1]);
}

// A body without joints (no constraint rows at all) crashed on an empty maximum. It falls freely:
// constant acceleration, which the scheme integrates exactly (a parabola), and its spin is kept.
BOOST_AUTO_TEST_CASE(free_body_without_joints_falls_on_its_parabola) {
  const Model m = loadMechanismString(
                      "name: free_body\ndimension: 3\ngravity: [0, 0, -9.81]\nbodies:\n"
                      "  - {name: ball, mass: 2.0, inertia: [0.1, 0.2, 0.3], position: [0, 0, 1],\n"
                      "     velocity: [1, 0, 2]}\n",
                      "free_body")
                      .model;
  GeneralizedAlphaOptions o;
  o.t_end = 1.0;
  State last;
  const DynamicsResult r =
      integrateGeneralizedAlpha(m, buildAssemblyPlan(m), initialState(m), o, [&](const State& s) {
        last = s;
        return true;
      });
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST(last.t == 1.0);
  BOOST_TEST(std::abs(last.q(0) - 1.0) < 1e-12);
  BOOST_TEST(std::abs(last.q(2) - (1.0 + 2.0 - 0.5 * 9.81)) < 1e-12);
  BOOST_TEST(std::abs(last.v(2) - (2.0 - 9.81)) < 1e-12);
}

// The known defect, asserted instead of dodged: at rho_inf = 0.99 the spin top's accelerations
// grow exponentially from t ~ 1 s and the run ends in garbage by 5-10 s
// (docs/dynamics-generalized-alpha.md). Whatever the outcome of a future fix, the run must never
// report success with a top whose energy has run away: it either stays within 1e-3 of m g l or
// stops with a failure that says the energy grew.
BOOST_AUTO_TEST_CASE(spin_top_at_rho_inf_099_never_reports_a_blow_up_as_success) {
  const Model m = loadMechanismFile(kInputs + "spin_top.yaml").model;
  const AssemblyPlan plan = buildAssemblyPlan(m);
  GeneralizedAlphaOptions o;
  o.step = 2e-3;
  o.error_tolerance = 0.0;
  o.t_end = 10.0;
  o.output_interval = 0.02;
  o.rho_inf = 0.99;
  const double e0 = computeEnergy(m, plan, initialState(m)).total();
  const double scale = m.bodies[0].mass * 9.81 * 1.0;  // m g l, J
  double worst = 0.0;
  const DynamicsResult r =
      integrateGeneralizedAlpha(m, plan, initialState(m), o, [&](const State& s) {
        worst = std::max(worst, std::abs(computeEnergy(m, plan, s).total() - e0));
        return true;
      });
  BOOST_TEST_MESSAGE("spin top, rho_inf 0.99, 10 s: "
                     << (r.status.ok() ? "success" : "failed") << " at t = " << r.state.t << " s, "
                     << "energy error " << worst / scale << " of m g l; " << r.status.message);
  if (r.status.ok())
    BOOST_TEST(worst / scale < 1e-3);
  else
    BOOST_TEST(r.status.message.find("energy") != std::string::npos, r.status.message);
}
