#define BOOST_TEST_MODULE lagrangian_examples
// The Lagrangian facility (formulations/lagrangian/) end to end: mechanisms written as one
// templated L(q, q'), C(q), their momentum-form Euler-Lagrange DAE formed by AD and integrated
// by IDA (stabilized index 2 and index 3), against independent references that share no code
// with it:
//  - planar and spherical pendulums in Cartesian coordinates vs their angle ODEs
//    (reference_odes.hpp), with the spherical pendulum's energy and L_z;
//  - Mechanism0 vs its (theta, r, phi) ODE of the paper's sec. 4.1.2 (mechanism0_reference.hpp);
//  - the free top: energy and world angular momentum conserved, and the motion vs Euler's
//    equations with Q' = Q [omega]x integrated by ARKODE;
//  - the rotation-matrix paper's double pendulum in end-point coordinates vs
//    doublePendulumTwoAngle.
#include <cmath>
#include <vector>

#include "formulations/lagrangian/lagrangian_ida.hpp"
#include "lagrangian_examples.hpp"
#include "mechanism0_reference.hpp"
#include "reference_odes.hpp"
#include "test_support.hpp"

using namespace catena;
using namespace catena::lagrangian;

namespace {

constexpr LagrangianForm kForms[] = {LagrangianForm::kStabilizedIndex2, LagrangianForm::kIndex3};

/// Bound by form: GGL or index 3.
double bound(LagrangianForm form, double ggl, double index3) {
  return form == LagrangianForm::kIndex3 ? index3 : ggl;
}

struct Trajectory {
  std::vector<double> t;
  std::vector<VecX> q, v;
  LagrangianRunResult result;
};

/// rtol 1e-9, atol 1e-12 (q, v, p). The index-3 form tests q only and is less accurate, so the
/// bounds differ by form.
Trajectory integrate(const LagrangianSystem& sys, const VecX& q0, const VecX& v0,
                     LagrangianForm form, double t_end, double interval, double rtol = 1e-9) {
  LagrangianState s0;
  const Status st = computeConsistentLagrangianState(sys, q0, v0, {}, s0);
  BOOST_TEST_REQUIRE(st.ok(), st.message);
  LagrangianIdaOptions opt;
  opt.form = form;
  opt.t_end = t_end;
  opt.output_interval = interval;
  opt.rtol = rtol;
  opt.atol = 1e-3 * rtol;
  Trajectory tr;
  tr.result = integrateLagrangianIda(sys, s0, opt, [&](const LagrangianState& s) {
    tr.t.push_back(s.t);
    tr.q.push_back(s.q);
    tr.v.push_back(s.v);
    return true;
  });
  BOOST_TEST_REQUIRE(tr.result.status.ok(), tr.result.status.message);
  BOOST_TEST_MESSAGE(sys.name << ", " << tr.result.method << ": " << tr.result.stats.steps
                              << " steps, " << tr.result.stats.newton_iterations << " Newton, "
                              << tr.result.stats.wall_seconds << " s, drift |C| "
                              << tr.result.stats.max_position_drift << ", |C_q v| "
                              << tr.result.stats.max_velocity_drift);
  return tr;
}

const char* formName(LagrangianForm f) {
  return f == LagrangianForm::kIndex3 ? "index 3" : "GGL";
}

}  // namespace

BOOST_AUTO_TEST_CASE(planar_pendulum_matches_its_angle_ode) {
  const double m = 1.0, l = 1.0, g = 9.81, theta0 = 1.0;
  const LagrangianSystem sys = makeLagrangianSystem(examples::PointPendulum<2>{m, l, g}, "planar");
  for (LagrangianForm form : kForms) {
    const Trajectory tr = integrate(sys, l * Vec2(std::sin(theta0), -std::cos(theta0)),
                                    Vec2::Zero(), form, 5.0, 0.05);
    const auto ref = reference::planarPendulum(l, g, theta0, 0.0, tr.t);
    double err = 0.0;
    for (std::size_t k = 0; k < tr.t.size(); ++k) {
      const double th = std::atan2(tr.q[k](0), -tr.q[k](1));
      err = std::max(err, std::abs(th - ref.theta(static_cast<Index>(k))));
    }
    BOOST_TEST_MESSAGE("planar pendulum " << formName(form) << ": max |theta error| " << err);
    BOOST_TEST(err < bound(form, 2e-7, 1e-4), formName(form) << ": " << err);
    BOOST_TEST(tr.result.stats.max_position_drift < 1e-9);
  }
}

BOOST_AUTO_TEST_CASE(spherical_pendulum_matches_its_ode_and_conserves_energy_and_lz) {
  const double m = 0.7, l = 1.1, g = 9.81, th = 1.0, ph = 0.3;
  const LagrangianSystem sys =
      makeLagrangianSystem(examples::PointPendulum<3>{m, l, g}, "spherical");
  const Vec3 r0 = l * Vec3(std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), -std::cos(th));
  const Vec3 v0 = 2.0 * Vec3(-std::sin(ph), std::cos(ph), 0.0);  // azimuthal
  for (LagrangianForm form : kForms) {
    const Trajectory tr = integrate(sys, r0, v0, form, 5.0, 0.05);
    const auto ref = reference::sphericalPendulum(m, l, g, r0, v0, tr.t);
    const double E0 = reference::sphericalPendulumEnergy(m, g, r0, v0);
    const double Lz0 = reference::sphericalPendulumAngularMomentumZ(m, r0, v0);
    double err_r = 0.0, err_v = 0.0, dE = 0.0, dLz = 0.0;
    for (std::size_t k = 0; k < tr.t.size(); ++k) {
      const Index c = static_cast<Index>(k);
      const Vec3 r = tr.q[k], v = tr.v[k];
      err_r = std::max(err_r, (r - ref.r.col(c)).norm());
      err_v = std::max(err_v, (v - ref.v.col(c)).norm());
      dE = std::max(dE, std::abs(reference::sphericalPendulumEnergy(m, g, r, v) - E0));
      dLz = std::max(dLz, std::abs(reference::sphericalPendulumAngularMomentumZ(m, r, v) - Lz0));
      BOOST_TEST(std::abs(computeLagrangianEnergy(sys, tr.q[k], tr.v[k]) -
                          reference::sphericalPendulumEnergy(m, g, r, v)) < 1e-12);
    }
    BOOST_TEST_MESSAGE("spherical pendulum " << formName(form) << ": max |r error| " << err_r
                                             << ", |v error| " << err_v << ", |dE| " << dE
                                             << ", |dLz| " << dLz);
    BOOST_TEST(err_r < bound(form, 3e-7, 1e-4));
    BOOST_TEST(err_v < bound(form, 5e-7, 2e-4));
    BOOST_TEST(dE < bound(form, 5e-7, 3e-4));
    BOOST_TEST(dLz < bound(form, 2e-7, 1e-4));
  }
}

BOOST_AUTO_TEST_CASE(mechanism0_matches_its_theta_r_phi_ode) {
  // The paper's IVP (Fig. 3): hanging, spring at rest length, A' = (1, 0), B' = 0.
  const reference::Mechanism0Params P{};
  const LagrangianSystem sys = makeLagrangianSystem(examples::Mechanism0{}, "Mechanism0");
  VecX q0(4), v0(4);
  q0 << 0.0, -P.L, 0.0, -(P.L + P.ell);
  v0 << 1.0, 0.0, 0.0, 0.0;
  for (LagrangianForm form : kForms) {
    const Trajectory tr = integrate(sys, q0, v0, form, 1.0, 0.01);
    // (theta, r, phi) = (0, 1, 0), rates (A'_x / L, 0, -A'_x / r) give the same A', B'.
    const auto [err_x, err_v] = reference::mechanism0Errors(P, tr.t, tr.q, tr.v);
    BOOST_TEST_MESSAGE("Mechanism0 " << formName(form) << ": max |x error| " << err_x
                                     << ", |v error| " << err_v);
    BOOST_TEST(err_x < bound(form, 1e-8, 5e-6));
    BOOST_TEST(err_v < bound(form, 5e-7, 5e-5));
  }
}

BOOST_AUTO_TEST_CASE(free_top_conserves_energy_and_angular_momentum_and_matches_euler) {
  const examples::FreeTop top{1.0, 2.0, 3.5};
  const LagrangianSystem sys = makeLagrangianSystem(top, "free top");
  const Vec3 Omega(0.2, 2.0, 0.3);  // near the intermediate axis: the top tumbles
  VecX q0(6), v0(6);
  q0 << Vec3::UnitX(), Vec3::UnitY();
  v0 << Omega.cross(Vec3::UnitX()), Omega.cross(Vec3::UnitY());
  // Reference: Q' = Q [omega]x, I omega' = (I omega) x omega in the body frame.
  const Vec3 I(top.Iu, top.Iv, top.Iw);
  auto rhs = [&I](double, const Eigen::VectorXd& y) {
    const Eigen::Map<const Mat3> Q(y.data());
    const Vec3 w = y.tail<3>();
    Mat3 W;
    W << 0, -w(2), w(1), w(2), 0, -w(0), -w(1), w(0), 0;
    Eigen::VectorXd f(12);
    Eigen::Map<Mat3>(f.data()) = Q * W;
    f.tail<3>() = (I.asDiagonal() * w).cross(w).cwiseQuotient(I);
    return f;
  };
  Eigen::VectorXd y0(12);
  y0.head<9>() = Eigen::Map<const VecX>(Mat3::Identity().eval().data(), 9);
  y0.tail<3>() = Omega;  // Q = I: body and world frames agree at t = 0
  for (LagrangianForm form : kForms) {
    const Trajectory tr = integrate(sys, q0, v0, form, 10.0, 0.1);
    const Eigen::MatrixXd ref = reference::integrateOde(rhs, 0.0, y0, tr.t);
    const double E0 = computeLagrangianEnergy(sys, q0, v0);
    const Vec3 H0 = top.angularMomentum(q0, v0);
    double dE = 0.0, dH = 0.0, err = 0.0;
    for (std::size_t k = 0; k < tr.t.size(); ++k) {
      dE = std::max(dE, std::abs(computeLagrangianEnergy(sys, tr.q[k], tr.v[k]) - E0));
      dH = std::max(dH, (top.angularMomentum(tr.q[k], tr.v[k]) - H0).norm());
      const VecX uv_ref = ref.col(static_cast<Index>(k)).head(6);  // columns u, v of Q
      err = std::max(err, (tr.q[k] - uv_ref).norm());
    }
    BOOST_TEST_MESSAGE("free top " << formName(form) << ": |dE| " << dE << " (E " << E0
                                   << "), |dH| " << dH << " (|H| " << H0.norm()
                                   << "), max |(u, v) error| " << err);
    BOOST_TEST(dE < bound(form, 1e-7, 1e-4) * E0);
    BOOST_TEST(dH < bound(form, 1e-7, 3e-5) * H0.norm());
    BOOST_TEST(err < bound(form, 3e-6, 3e-4));
    BOOST_TEST(tr.result.stats.max_position_drift < 1e-8);
  }
}

BOOST_AUTO_TEST_CASE(bar_double_pendulum_matches_the_two_angle_reference) {
  const examples::BarDoublePendulum dp{};
  const LagrangianSystem sys = makeLagrangianSystem(dp, "bar double pendulum");
  const double phi0 = M_PI / 9, psi0 = M_PI / 18;
  VecX q0(4);
  q0 << dp.l * std::cos(phi0), dp.l * std::sin(phi0), dp.l * (std::cos(phi0) + std::cos(psi0)),
      dp.l * (std::sin(phi0) + std::sin(psi0));
  for (LagrangianForm form : kForms) {
    const Trajectory tr = integrate(sys, q0, VecX::Zero(4), form, 2.0, 0.01);
    const auto ref =
        reference::doublePendulumTwoAngle(dp.m, dp.l, dp.a, dp.g, phi0, psi0, 0.0, 0.0, tr.t);
    const double E0 = reference::doublePendulumEnergy(dp.m, dp.l, dp.a, dp.g, phi0, psi0, 0, 0);
    double err = 0.0, dE = 0.0;
    for (std::size_t k = 0; k < tr.t.size(); ++k) {
      const Index c = static_cast<Index>(k);
      const VecX& q = tr.q[k];
      const double phi = std::atan2(q(1), q(0)), psi = std::atan2(q(3) - q(1), q(2) - q(0));
      err = std::max({err, std::abs(phi - ref.phi(c)), std::abs(psi - ref.psi(c))});
      dE = std::max(dE, std::abs(computeLagrangianEnergy(sys, q, tr.v[k]) - E0));
    }
    BOOST_TEST_MESSAGE("bar double pendulum " << formName(form) << ": max |angle error| " << err
                                              << ", |E - E_ref(0)| " << dE);
    BOOST_TEST(err < bound(form, 5e-8, 5e-5));
    BOOST_TEST(dE < bound(form, 3e-9, 3e-6));
  }
}
