/// @file reference_odes_test.cpp
/// The reference solutions checked against closed forms and invariants before anything is
/// compared with them: pendulum periods (elliptic integral), conservation laws, the conical
/// pendulum, and the double pendulum's linearized normal modes solved here by hand.

#define BOOST_TEST_MODULE reference_odes
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "reference_odes.hpp"
#include "test_support.hpp"

namespace ref = catena::reference;
using Eigen::Vector3d;
using Eigen::VectorXd;

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kDeg = kPi / 180.0;

/// n + 1 equally spaced times on [0, t_end].
std::vector<double> grid(double t_end, int n) {
  std::vector<double> t(n + 1);
  for (int k = 0; k <= n; ++k) t[k] = t_end * k / n;
  return t;
}

/// Upward zero crossings of x(t), each located on the cubic Hermite interpolant through
/// (x, xdot) at the two bracketing samples (bisection on the cubic).
std::vector<double> upwardCrossings(const std::vector<double>& t, const VectorXd& x,
                                    const VectorXd& xdot) {
  std::vector<double> out;
  for (std::size_t k = 0; k + 1 < t.size(); ++k) {
    if (!(x[k] < 0.0 && x[k + 1] >= 0.0)) continue;
    const double h = t[k + 1] - t[k];
    const auto p = [&](double s) {
      return catena::test::cubicHermite(x[k], xdot[k], x[k + 1], xdot[k + 1], h, s);
    };
    double lo = 0.0, hi = 1.0;
    for (int it = 0; it < 60; ++it) {
      const double mid = 0.5 * (lo + hi);
      (p(mid) < 0.0 ? lo : hi) = mid;
    }
    out.push_back(t[k] + 0.5 * (lo + hi) * h);
  }
  return out;
}

/// Mean period between the first and last upward crossing.
double measuredPeriod(const std::vector<double>& t, const VectorXd& x, const VectorXd& xdot) {
  const std::vector<double> c = upwardCrossings(t, x, xdot);
  BOOST_REQUIRE_GE(c.size(), 2u);
  return (c.back() - c.front()) / static_cast<double>(c.size() - 1);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(integrate_ode_exponential_at_output_times) {
  const std::vector<double> times{0.0, 0.0, 0.3, 1.0, 1.0, 2.5};
  const ref::OdeRhs f = [](double, const VectorXd& y) { return VectorXd(-y); };
  const Eigen::MatrixXd Y = ref::integrateOde(f, 0.0, VectorXd::Ones(1), times);
  double worst = 0.0;
  for (std::size_t k = 0; k < times.size(); ++k)
    worst = std::max(worst, std::abs(Y(0, k) / std::exp(-times[k]) - 1.0));
  BOOST_TEST_MESSAGE("y' = -y: worst relative error " << worst);
  BOOST_CHECK_LE(worst, 1e-11);
}

BOOST_AUTO_TEST_CASE(integrate_ode_reports_failures) {
  const ref::OdeRhs f = [](double, const VectorXd& y) { return VectorXd(-y); };
  ref::OdeOptions few_steps;
  few_steps.max_steps = 5;
  BOOST_CHECK_THROW(ref::integrateOde(f, 0.0, VectorXd::Ones(1), {100.0}, few_steps),
                    std::runtime_error);
  const ref::OdeRhs throws = [](double t, const VectorXd& y) {
    if (t > 0.5) throw std::domain_error("boom");
    return VectorXd(-y);
  };
  try {
    ref::integrateOde(throws, 0.0, VectorXd::Ones(1), {1.0});
    BOOST_ERROR("an exception thrown by the right-hand side was swallowed");
  } catch (const std::runtime_error& e) {
    BOOST_TEST_MESSAGE("reported: " << e.what());
    BOOST_CHECK(std::string(e.what()).find("boom") != std::string::npos);
  }
  BOOST_CHECK_THROW(ref::integrateOde(f, 0.0, VectorXd::Ones(1), {1.0, 0.5}),
                    std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(planar_pendulum_period_matches_elliptic_integral) {
  const double L = 0.5, g = 9.81;
  for (const double theta0_deg : {30.0, 150.0}) {
    const double theta0 = theta0_deg * kDeg;
    const double T = 4.0 * std::sqrt(L / g) * std::comp_ellint_1(std::sin(0.5 * theta0));
    // Released at rest at theta0 > 0: upward crossings at 3T/4, 7T/4, ..., 19T/4.
    const std::vector<double> t = grid(5.25 * T, 10500);
    for (const ref::ErkTable table :
         {ref::ErkTable::kFehlberg78, ref::ErkTable::kDormandPrince45}) {
      ref::OdeOptions options;
      options.table = table;
      const ref::PlanarPendulumSolution s = ref::planarPendulum(L, g, theta0, 0.0, t, options);
      const double error = std::abs(measuredPeriod(t, s.theta, s.theta_dot) / T - 1.0);
      const bool fehlberg = table == ref::ErkTable::kFehlberg78;
      BOOST_TEST_MESSAGE("planar pendulum theta0 = "
                         << theta0_deg << " deg, " << (fehlberg ? "Fehlberg 7(8)" : "DP 5(4)")
                         << ": T = " << T << " s, relative error " << error);
      BOOST_CHECK_LE(error, 1e-9);
    }
  }
}

BOOST_AUTO_TEST_CASE(planar_pendulum_accuracy_with_sparse_output) {
  // With outputs only at whole periods the integrator takes its natural steps; theta(kT) =
  // theta0 and theta'(kT) = 0 exactly. Compares the two tables' accuracy and cost.
  const double L = 0.5, g = 9.81, theta0 = 150 * kDeg;
  const double T = 4.0 * std::sqrt(L / g) * std::comp_ellint_1(std::sin(0.5 * theta0));
  std::vector<double> t;
  for (int k = 1; k <= 10; ++k) t.push_back(k * T);
  for (const ref::ErkTable table : {ref::ErkTable::kFehlberg78, ref::ErkTable::kDormandPrince45}) {
    long evaluations = 0;
    const ref::OdeRhs f = [&](double, const VectorXd& y) {
      ++evaluations;
      return VectorXd{{y[1], -(g / L) * std::sin(y[0])}};
    };
    ref::OdeOptions options;
    options.table = table;
    const Eigen::MatrixXd Y = ref::integrateOde(f, 0.0, VectorXd{{theta0, 0.0}}, t, options);
    const double error = std::max((Y.row(0).array() - theta0).abs().maxCoeff(),
                                  Y.row(1).cwiseAbs().maxCoeff() * std::sqrt(L / g));
    const bool fehlberg = table == ref::ErkTable::kFehlberg78;
    BOOST_TEST_MESSAGE("planar pendulum 150 deg, 10 periods, "
                       << (fehlberg ? "Fehlberg 7(8)" : "DP 5(4)") << ": max error " << error
                       << " rad in " << evaluations << " RHS evaluations");
    BOOST_CHECK_LE(error, fehlberg ? 1e-10 : 1e-9);
  }
}

// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(spherical_pendulum_keeps_length_energy_and_lz) {
  // The case: 1 kg, L = 0.08 m, on the equator, 0.7895 m/s along +y.
  const double m = 1.0, L = 0.08, g = 9.81;
  const Vector3d r0(0.08, 0.0, 0.0), v0(0.0, 0.7895, 0.0);
  const std::vector<double> t = grid(2.0, 4000);
  const ref::SphericalPendulumSolution s = ref::sphericalPendulum(m, L, g, r0, v0, t);

  const double E0 = ref::sphericalPendulumEnergy(m, g, r0, v0);
  const double Lz0 = ref::sphericalPendulumAngularMomentumZ(m, r0, v0);
  double length = 0.0, energy = 0.0, lz = 0.0, zmin = 0.0;
  for (Eigen::Index k = 0; k < s.r.cols(); ++k) {
    length = std::max(length, std::abs(s.r.col(k).norm() / L - 1.0));
    energy = std::max(
        energy, std::abs(ref::sphericalPendulumEnergy(m, g, s.r.col(k), s.v.col(k)) / E0 - 1.0));
    lz = std::max(
        lz,
        std::abs(ref::sphericalPendulumAngularMomentumZ(m, s.r.col(k), s.v.col(k)) / Lz0 - 1.0));
    zmin = std::min(zmin, s.r(2, k));
  }
  BOOST_TEST_MESSAGE("spherical pendulum over 2 s: max ||r|/L - 1| = "
                     << length << ", energy " << energy << ", L_z " << lz
                     << " (relative); lowest z = " << zmin << " m");
  BOOST_CHECK_LE(length, 1e-12);
  BOOST_CHECK_LE(energy, 1e-10);
  BOOST_CHECK_LE(lz, 1e-10);
  BOOST_CHECK_LT(zmin, -0.5 * L);  // it does swing down, so the check is not vacuous

  // Cross-check of the chart's equations of motion with the Cartesian form (rod force
  // eliminated, r'' = -g e_z - (|v|^2 - g z) r / |r|^2), whose |r| drifts only at the
  // tolerance level over 2 s.
  const ref::OdeRhs cartesian = [g](double, const VectorXd& y) {
    const Vector3d r = y.head<3>(), v = y.tail<3>();
    const Vector3d a = Vector3d(0, 0, -g) - (v.squaredNorm() - g * r.z()) / r.squaredNorm() * r;
    VectorXd f(6);
    f << v, a;
    return f;
  };
  VectorXd y0(6);
  y0 << r0, v0;
  const Eigen::MatrixXd Y = ref::integrateOde(cartesian, 0.0, y0, t);
  const double dr = (Y.topRows(3) - s.r).cwiseAbs().maxCoeff() / L;
  const double dv = (Y.bottomRows(3) - s.v).cwiseAbs().maxCoeff() / v0.norm();
  BOOST_TEST_MESSAGE(
      "spherical vs Cartesian over 2 s: max |dr|/L = " << dr << ", max |dv|/|v0| = " << dv);
  BOOST_CHECK_LE(dr, 1e-9);
  BOOST_CHECK_LE(dv, 1e-9);
}

BOOST_AUTO_TEST_CASE(spherical_pendulum_conical_orbit_keeps_its_height) {
  const double m = 1.0, L = 0.08, g = 9.81;
  for (const double alpha_deg : {30.0, 75.0}) {
    const double alpha = alpha_deg * kDeg;  // polar angle from -z
    const double speed = std::sqrt(g * L * std::sin(alpha) * std::tan(alpha));
    const Vector3d r0(L * std::sin(alpha), 0.0, -L * std::cos(alpha)), v0(0.0, speed, 0.0);
    const std::vector<double> t = grid(2.0, 2000);
    const ref::SphericalPendulumSolution s = ref::sphericalPendulum(m, L, g, r0, v0, t);
    const double dz = (s.r.row(2).array() - r0.z()).abs().maxCoeff() / L;
    // The whole orbit in closed form: uniform rotation at Omega = speed / (L sin alpha).
    const double Omega = speed / (L * std::sin(alpha));
    double dr = 0.0;
    for (std::size_t k = 0; k < t.size(); ++k) {
      const Vector3d exact(L * std::sin(alpha) * std::cos(Omega * t[k]),
                           L * std::sin(alpha) * std::sin(Omega * t[k]), r0.z());
      dr = std::max(dr, (s.r.col(k) - exact).norm() / L);
    }
    BOOST_TEST_MESSAGE("conical pendulum alpha = " << alpha_deg << " deg ("
                                                   << Omega * 2.0 / (2 * kPi)
                                                   << " turns): max |z - z0| / L = " << dz
                                                   << ", max |r - r_exact| / L = " << dr);
    BOOST_CHECK_LE(dz, 1e-10);
    BOOST_CHECK_LE(dr, 1e-10);
  }
}

BOOST_AUTO_TEST_CASE(spherical_pendulum_refuses_the_poles_and_bad_input) {
  const double m = 1.0, L = 0.08, g = 9.81;
  // Released at rest on the equator it swings through the bottom pole: L_z = 0.
  BOOST_CHECK_THROW(ref::sphericalPendulum(m, L, g, Vector3d(L, 0, 0), Vector3d::Zero(), {1.0}),
                    std::runtime_error);
  BOOST_CHECK_THROW(ref::sphericalPendulum(m, L, g, Vector3d(0.09, 0, 0), Vector3d(0, 1, 0), {1.0}),
                    std::invalid_argument);
  BOOST_CHECK_THROW(ref::sphericalPendulum(m, L, g, Vector3d(L, 0, 0), Vector3d(1, 1, 0), {1.0}),
                    std::invalid_argument);
  BOOST_CHECK_THROW(ref::sphericalPendulum(m, L, g, Vector3d(0, 0, -L), Vector3d(1, 0, 0), {1.0}),
                    std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------

namespace {
// The paper's bars (sec. 6): 0.108 kg, 0.20 x 0.02 x 0.01 m.
constexpr double kM = 0.108, kL = 0.20, kA = 0.02, kG = 9.81;
}  // namespace

BOOST_AUTO_TEST_CASE(double_pendulum_conserves_energy) {
  const std::vector<double> t = grid(5.0, 5000);
  const ref::DoublePendulumSolution s =
      ref::doublePendulumTwoAngle(kM, kL, kA, kG, 20 * kDeg, 10 * kDeg, 0.0, 0.0, t);
  const double E0 = ref::doublePendulumEnergy(kM, kL, kA, kG, 20 * kDeg, 10 * kDeg, 0.0, 0.0);
  double worst = 0.0;
  for (std::size_t k = 0; k < t.size(); ++k)
    worst = std::max(worst, std::abs(ref::doublePendulumEnergy(kM, kL, kA, kG, s.phi[k], s.psi[k],
                                                               s.phi_dot[k], s.psi_dot[k]) /
                                         E0 -
                                     1.0));
  BOOST_TEST_MESSAGE("double pendulum over 5 s: E0 = " << E0 << " J, max relative drift " << worst
                                                       << "; phi(5) = " << s.phi[t.size() - 1]
                                                       << ", psi(5) = " << s.psi[t.size() - 1]);
  BOOST_CHECK_LE(worst, 1e-10);
  BOOST_CHECK_GT(s.psi.maxCoeff(), 10 * kDeg);  // the bars do exchange energy

  // C = m (l^2 + a^2) / 12 = 3.636 kg cm^2 as printed in the paper.
  const ref::DoublePendulumPoints p = ref::doublePendulumPoints(kL, 20 * kDeg, 10 * kDeg);
  BOOST_CHECK_CLOSE(kM * (kL * kL + kA * kA) / 12.0 * 1e4, 3.636, 1e-2);
  BOOST_CHECK_CLOSE(p.g2.x(), kL * std::cos(20 * kDeg) + 0.5 * kL * std::cos(10 * kDeg), 1e-12);
}

BOOST_AUTO_TEST_CASE(double_pendulum_small_oscillations_match_normal_modes) {
  // Linearized (26): M0 q'' + K q = 0. det(K - lambda M0) = 0 is the quadratic
  // A lambda^2 - B lambda + D = 0; mode shape from the first row of (K - lambda M0) u = 0.
  const double C = kM * (kL * kL + kA * kA) / 12.0;
  const double M11 = C + 1.25 * kM * kL * kL, M22 = C + 0.25 * kM * kL * kL,
               M12 = 0.5 * kM * kL * kL;
  const double K11 = 1.5 * kM * kG * kL, K22 = 0.5 * kM * kG * kL;
  const double A = M11 * M22 - M12 * M12, B = K11 * M22 + K22 * M11, D = K11 * K22;
  const double root = std::sqrt(B * B - 4 * A * D);
  const double lambdas[2] = {2 * D / (B + root), (B + root) / (2 * A)};  // cancellation-free

  for (int mode = 0; mode < 2; ++mode) {
    const double lambda = lambdas[mode];
    Eigen::Vector2d u(lambda * M12, K11 - lambda * M11);
    u /= u.cwiseAbs().maxCoeff();
    const double amplitude = 1e-4;
    const double T = 2 * kPi / std::sqrt(lambda);
    const std::vector<double> t = grid(5.25 * T, 10500);
    const ref::DoublePendulumSolution s = ref::doublePendulumTwoAngle(
        kM, kL, kA, kG, amplitude * u[0], amplitude * u[1], 0.0, 0.0, t);
    const bool use_phi = std::abs(u[0]) >= std::abs(u[1]);
    const double measured =
        use_phi ? measuredPeriod(t, s.phi, s.phi_dot) : measuredPeriod(t, s.psi, s.psi_dot);
    // A pure mode stays pure: the other angle keeps the ratio u[1] / u[0].
    const double purity = (s.psi * u[0] - s.phi * u[1]).cwiseAbs().maxCoeff() / amplitude;
    const double error = std::abs(measured / T - 1.0);
    BOOST_TEST_MESSAGE("double pendulum mode " << mode + 1 << ": shape (" << u[0] << ", " << u[1]
                                               << "), T = " << T << " s, measured " << measured
                                               << ", relative error " << error << ", mode mixing "
                                               << purity);
    BOOST_CHECK_LE(error, 1e-6);
    BOOST_CHECK_LE(purity, 1e-6);
  }
}
