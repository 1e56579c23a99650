#define BOOST_TEST_MODULE natural_examples
// The natural-coordinates examples of inputs/natural/ end to end (YAML -> NaturalModel ->
// Lagrangian facility -> IDA, GGL index 2, rtol 1e-9), against references that share no code:
//  - Mechanism0 vs its (theta, r, phi) ODE (mechanism0_reference.hpp), with the paper's
//    fixed initial values (A_x, B), and with a torque on an explicit angle (eq. 33);
//  - the free top: energy and world angular momentum conserved;
//  - the RSCR: one degree of freedom, the loop stays closed (|B - C| = L2 with C := C1 + mu v),
//    energy conserved;
//  - the rotation-matrix paper's double pendulum (3D bars, spherical joints) vs
//    doublePendulumTwoAngle, motion staying in its plane.
#include <cmath>
#include <memory>
#include <sstream>
#include <vector>

#include "formulations/lagrangian/lagrangian_ida.hpp"
#include "formulations/natural/natural_mechanism.hpp"
#include "formulations/natural/natural_yaml.hpp"
#include "mechanism0_reference.hpp"
#include "reference_odes.hpp"
#include "test_support.hpp"

using namespace catena;
using namespace catena::lagrangian;
using namespace catena::natural;

namespace {

struct Run {
  NaturalInput in;
  LagrangianSystem sys;
  std::vector<double> t;
  std::vector<VecX> q, v;
  LagrangianRunResult result;
};

Run run(NaturalInput in, const std::string& stem, double interval, double rtol = 1e-9) {
  Run r;
  r.in = std::move(in);
  r.sys = makeNaturalLagrangianSystem(std::make_shared<const NaturalModel>(r.in.model));
  LagrangianState s0;
  ConsistencyOptions copt;
  copt.fixed = r.in.problem.fixed;
  const Status st =
      computeConsistentLagrangianState(r.sys, r.in.problem.q0, r.in.problem.v0, copt, s0);
  BOOST_TEST_REQUIRE(st.ok(), st.message);
  LagrangianIdaOptions opt;
  opt.form = LagrangianForm::kStabilizedIndex2;
  opt.t_end = r.in.problem.t_end;
  opt.output_interval = interval;
  opt.rtol = rtol;
  opt.atol = 1e-3 * rtol;
  r.result = integrateLagrangianIda(r.sys, s0, opt, [&r](const LagrangianState& s) {
    r.t.push_back(s.t);
    r.q.push_back(s.q);
    r.v.push_back(s.v);
    return true;
  });
  BOOST_TEST_REQUIRE(r.result.status.ok(), r.result.status.message);
  BOOST_TEST_MESSAGE(stem << ": " << r.result.stats.steps << " steps, drift |C| "
                          << r.result.stats.max_position_drift << ", |C_q v| "
                          << r.result.stats.max_velocity_drift);
  BOOST_TEST(r.result.stats.max_position_drift < 1e-8);
  return r;
}

Run run(const std::string& stem, double interval, double rtol = 1e-9) {
  std::string path = CATENA_SOURCE_DIR "/inputs/natural/";
  path += stem;
  path += ".yaml";
  return run(loadNaturalInput(path), stem, interval, rtol);
}

Vec3 seg(const VecX& x, Index i) {
  return x.segment<3>(i);
}

}  // namespace

BOOST_AUTO_TEST_CASE(mechanism0_from_yaml_matches_its_theta_r_phi_ode) {
  const reference::Mechanism0Params P{};
  const Run r = run("mechanism0", 0.01);
  const auto [err_x, err_v] = reference::mechanism0Errors(P, r.t, r.q, r.v);
  BOOST_TEST_MESSAGE("Mechanism0 (YAML): max |x error| " << err_x << ", |v error| " << err_v);
  BOOST_TEST(err_x < 1e-7);
  BOOST_TEST(err_v < 1e-6);
}

BOOST_AUTO_TEST_CASE(mechanism0_with_a_torque_tracks_its_angle_past_two_pi) {
  // The paper's eq. (33): th (from the WF x axis) in q, tau = 30 N m; the reference is the
  // (theta, r, phi) ODE with tau on theta (from the downward vertical: th = theta - pi/2).
  reference::Mechanism0Params P{};
  P.tau = 30.0;
  const Run r = run("mechanism0_torque", 0.01);
  BOOST_TEST(r.in.model.nq == 5);
  BOOST_TEST(r.in.model.nc == 2);
  BOOST_TEST(r.q[0](4) == -M_PI / 2, boost::test_tools::tolerance(1e-14));  // from A, by atan2
  Eigen::MatrixXd angles;
  const Eigen::MatrixXd ref = reference::mechanism0PaperReference(P, r.t, &angles);
  double err_x = 0.0, err_th = 0.0;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const Index c = static_cast<Index>(k);
    err_x = std::max(err_x, (r.q[k].head(4) - ref.col(c).head(4)).norm());
    err_th = std::max(err_th, std::abs(r.q[k](4) - (angles(0, c) - M_PI / 2)));
  }
  const double turns = (r.q.back()(4) - r.q.front()(4)) / (2 * M_PI);
  BOOST_TEST_MESSAGE("Mechanism0 + torque: " << turns << " turns of OA, max |x error| " << err_x
                                             << " m, |th error| " << err_th << " rad");
  BOOST_TEST(turns > 1.0);  // past 2 pi: the angle is continuous, not wrapped
  BOOST_TEST(err_x < 1e-6);
  BOOST_TEST(err_th < 1e-6);
}

BOOST_AUTO_TEST_CASE(relative_angle_with_a_torque_conserves_momentum_and_jacobi_integral) {
  // Two unit bars pinned at O and at A, no gravity; th1 of OA from the WF, th2 of AB measured
  // from OA with a torque of 0.5 N m between them (internal: the angular momentum about O stays;
  // the torque's work goes into kinetic energy, T - tau th2 stays).
  std::istringstream yaml(
      "formulation: natural\ndimension: 2\nfixed:\n  O: {point: [0, 0]}\n"
      "moving:\n  A: point\n  B: point\nbodies:\n"
      "  OA: {basis: [O, A], geometry: [[1]], mass: 1, centroid: [0.5], inertia: "
      "0.0833333333333333333}\n"
      "  AB: {basis: [A, B], geometry: [[1]], mass: 1, centroid: [0.5], inertia: "
      "0.0833333333333333333}\n"
      "angles:\n  th1: {body: OA}\n  th2: {body: AB, reference: OA, torque: 0.5}\n"
      "problem:\n  t_end: 4\n  positions: {A: [1, 0], B: [1.6, 0.8]}\n"
      "  velocities: {A: [0, 1]}\n  fixed: [A]\n");
  const Run r = run(readNaturalInput(yaml, "relative_angle.yaml"), "relative angle", 0.01);
  BOOST_TEST(r.in.model.nq == 6);
  BOOST_TEST(r.in.model.nc == 4);
  auto momentum = [](const VecX& q, const VecX& v) {  // about O, e_z
    const Vec2 A = q.head<2>(), B = q.segment<2>(2), Ad = v.head<2>(), Bd = v.segment<2>(2);
    auto cross = [](const Vec2& a, const Vec2& b) { return a(0) * b(1) - a(1) * b(0); };
    const Vec2 M1 = 0.5 * A, M1d = 0.5 * Ad, M2 = 0.5 * (A + B), M2d = 0.5 * (Ad + Bd);
    return cross(M1, M1d) + cross(A, Ad) / 12.0 + cross(M2, M2d) + cross(B - A, Bd - Ad) / 12.0;
  };
  auto kinetic = [](const VecX& q, const VecX& v) {  // bars of unit mass, length and I = 1/12
    const Vec2 A = q.head<2>(), B = q.segment<2>(2), Ad = v.head<2>(), Bd = v.segment<2>(2);
    auto rate2 = [](const Vec2& x, const Vec2& xd) {  // omega^2 of a unit bar along x
      return std::pow(x(0) * xd(1) - x(1) * xd(0), 2);
    };
    return 0.5 * (0.25 * Ad.squaredNorm() + rate2(A, Ad) / 12.0) +
           0.5 * (0.25 * (Ad + Bd).squaredNorm() + rate2(B - A, Bd - Ad) / 12.0);
  };
  // T - tau th2 from the bar velocities, not through the facility: the torque's work balance.
  auto balance = [&](const VecX& q, const VecX& v) { return kinetic(q, v) - 0.5 * q(5); };
  const double J0 = computeLagrangianEnergy(r.sys, r.q[0], r.v[0]), H0 = momentum(r.q[0], r.v[0]),
               W0 = balance(r.q[0], r.v[0]);
  double dW = 0.0;
  double dJ = 0.0, dH = 0.0, dth = 0.0, th2 = r.q[0](5), th2_min = th2, th2_max = th2;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    dJ = std::max(dJ, std::abs(computeLagrangianEnergy(r.sys, r.q[k], r.v[k]) - J0));
    dW = std::max(dW, std::abs(balance(r.q[k], r.v[k]) - W0));
    dH = std::max(dH, std::abs(momentum(r.q[k], r.v[k]) - H0));
    // th2 against the angle between the bars, unwrapped step by step (outputs are close).
    const Vec2 a = r.q[k].head<2>(), b = r.q[k].segment<2>(2) - a;
    const double rel = std::atan2(a(0) * b(1) - a(1) * b(0), a.dot(b));
    th2 += std::remainder(rel - th2, 2 * M_PI);
    dth = std::max(dth, std::abs(r.q[k](5) - th2));
    th2_min = std::min(th2_min, r.q[k](5));
    th2_max = std::max(th2_max, r.q[k](5));
  }
  const double work = 0.5 * (th2_max - th2_min);  // the largest work of the torque [J]
  BOOST_TEST_MESSAGE("relative angle: th2 "
                     << r.q[0](5) << " -> " << r.q.back()(5) << " rad, work of the torque up to "
                     << work << " J, |dJ| " << dJ << ", |d(T - tau th2)| " << dW << ", |dH| " << dH
                     << ", |th2 - geometric| " << dth);
  BOOST_TEST(std::abs(r.q[0](5) - std::atan2(0.8, 0.6)) < 1e-12);  // from the positions
  BOOST_TEST(work > 0.1);  // the torque's work shows in T (E0 = 0.5 J), and J must hold it
  BOOST_TEST(dJ < 1e-6);
  BOOST_TEST(dW < 1e-6);
  BOOST_TEST(dH < 1e-6);
  BOOST_TEST(dth < 1e-9);
}

BOOST_AUTO_TEST_CASE(free_top_from_yaml_conserves_energy_and_angular_momentum) {
  const Run r = run("free_top", 0.02);
  const Vec3 I(1.0, 2.0, 3.0);
  auto momentum = [&I](const VecX& q, const VecX& v) {
    const Vec3 u = seg(q, 0), w0 = seg(q, 3), ud = seg(v, 0), vd = seg(v, 3);
    const Vec3 w = u.cross(w0), wd = ud.cross(w0) + u.cross(vd);
    const Vec3 om(w.dot(vd), u.dot(wd), w0.dot(ud));
    Mat3 Q;
    Q << u, w0, w;
    return Vec3(Q * I.cwiseProduct(om));
  };
  const double E0 = computeLagrangianEnergy(r.sys, r.q[0], r.v[0]);
  const Vec3 H0 = momentum(r.q[0], r.v[0]);
  double dE = 0.0, dH = 0.0;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    dE = std::max(dE, std::abs(computeLagrangianEnergy(r.sys, r.q[k], r.v[k]) - E0));
    dH = std::max(dH, (momentum(r.q[k], r.v[k]) - H0).norm());
  }
  BOOST_TEST_MESSAGE("free top (YAML): E " << E0 << " J, |dE| " << dE << ", |H| " << H0.norm()
                                           << ", |dH| " << dH);
  BOOST_TEST(std::abs(E0 - 0.5 * (1.0 + 2.0 * 0.09 + 3.0 * 2.25)) < 1e-12);
  BOOST_TEST(dE < 1e-6);
  BOOST_TEST(dH < 1e-6);
}

BOOST_AUTO_TEST_CASE(rscr_moves_with_one_dof_and_closes_its_loop) {
  const Run r = run("rscr", 0.02);
  const NaturalModel& m = r.in.model;
  const std::size_t iB = static_cast<std::size_t>(m.findPv("B")),
                    iC = static_cast<std::size_t>(m.findPv("C")),
                    iC1 = static_cast<std::size_t>(m.findPv("C1"));
  const double E0 = computeLagrangianEnergy(r.sys, r.q[0], r.v[0]);
  double loop = 0.0, dE = 0.0, travel = 0.0, mu_min = 1e9, mu_max = -1e9;
  Index rank_min = 100, rank_max = 0;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const std::vector<Vec3> x = computeNaturalPositions(m, r.q[k]);
    loop =
        std::max({loop, std::abs((x[iB] - x[iC]).norm() - 1.0),
                  std::abs((x[iB] - Vec3(-1, 0, 0)).norm() - 0.5), std::abs(x[iC1].norm() - 0.8)});
    dE = std::max(dE, std::abs(computeLagrangianEnergy(r.sys, r.q[k], r.v[k]) - E0));
    travel = std::max(travel, (x[iB] - computeNaturalPositions(m, r.q[0])[iB]).norm());
    mu_min = std::min(mu_min, r.q[k](6));
    mu_max = std::max(mu_max, r.q[k](6));
    VecX C;
    MatX C_q;
    computeNaturalConstraints(m, r.q[k], C, C_q);
    Eigen::FullPivLU<MatX> lu(C_q);
    lu.setThreshold(1e-9);
    rank_min = std::min<Index>(rank_min, static_cast<Index>(lu.rank()));
    rank_max = std::max<Index>(rank_max, static_cast<Index>(lu.rank()));
  }
  BOOST_TEST_MESSAGE("RSCR: loop error " << loop << " m, |dE| " << dE << " J (E " << E0
                                         << "), B travels " << travel << " m, mu in [" << mu_min
                                         << ", " << mu_max << "] m, rank C_q " << rank_min << ".."
                                         << rank_max);
  BOOST_TEST(rank_min == 6);
  BOOST_TEST(rank_max == 6);  // nq - rank = 1 DOF along the whole motion
  BOOST_TEST(loop < 1e-8);
  BOOST_TEST(dE < 1e-6 * std::max(1.0, E0));
  BOOST_TEST(travel > 0.1);            // it moves
  BOOST_TEST(mu_max - mu_min > 1e-3);  // and the cylindrical joint slides
}

BOOST_AUTO_TEST_CASE(bar_double_pendulum_matches_two_angle_reference) {
  const double m = 0.108, l = 0.20, a = 0.02, g = 9.81, phi0 = M_PI / 9, psi0 = M_PI / 18;
  const Run r = run("bar_double_pendulum", 0.01);
  const auto ref = reference::doublePendulumTwoAngle(m, l, a, g, phi0, psi0, 0.0, 0.0, r.t);
  const double E0 = reference::doublePendulumEnergy(m, l, a, g, phi0, psi0, 0.0, 0.0);
  double err = 0.0, dE = 0.0, off_plane = 0.0;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const Index c = static_cast<Index>(k);
    const Vec3 H = seg(r.q[k], 0), P = seg(r.q[k], 6);
    const double phi = std::atan2(H(1), H(0)), psi = std::atan2(P(1) - H(1), P(0) - H(0));
    err = std::max({err, std::abs(phi - ref.phi(c)), std::abs(psi - ref.psi(c))});
    dE = std::max(dE, std::abs(computeLagrangianEnergy(r.sys, r.q[k], r.v[k]) - E0));
    off_plane = std::max({off_plane, std::abs(H(2)), std::abs(P(2))});
  }
  BOOST_TEST_MESSAGE("bar double pendulum (3D natural): max |angle error| "
                     << err << " rad, |E - E_ref(0)| " << dE << " J, off-plane " << off_plane);
  BOOST_TEST(err < 1e-7);
  BOOST_TEST(dE < 1e-8);
  BOOST_TEST(off_plane < 1e-12);
}
