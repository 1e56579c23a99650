#define BOOST_TEST_MODULE natural_ad_dynamic
// The dynamic-size AD of natural-coordinate mechanisms (makeNaturalLagrangianSystemDynamic,
// docs/natural-coordinates.md, "Limits"): on the paper's small examples it equals the padded
// fixed-size path to round-off; on the closed-chain robot with masses (nq = 18, beyond the
// fixed-size limit) every first and second derivative matches central differences of the order
// below; and an IDA run of that robot under gravity conserves energy and keeps C = 0.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <string>

#include "formulations/lagrangian/lagrangian_ida.hpp"
#include "formulations/natural/natural_mechanism.hpp"
#include "formulations/natural/natural_yaml.hpp"
#include "test_support.hpp"

using namespace catena;
using namespace catena::lagrangian;
using namespace catena::natural;

namespace {

NaturalInput load(const std::string& stem) {
  return loadNaturalInput(std::string(CATENA_SOURCE_DIR) + "/inputs/natural/" + stem + ".yaml");
}

/// inputs/natural/closed_chain_robot.yaml (kinematics only there) with gravity along -z, masses,
/// centroids and principal inertias on its four bodies (rods along each body's x axis; the base
/// turns about u1 = e_z, its x axis), and initial velocities that make the motion
/// three-dimensional. nq = 18, nc = 12, 6 DOF.
const char* const kRobotWithMasses = R"(formulation: natural
title: closed-chain robot with masses
dimension: 3
gravity: [0, 0, -9.81]
fixed:
  O: {point: [0, 0, 0]}
  u1: {vector: [0, 0, 1]}
moving:
  u3: vector
  C: point
  u4: vector
  F: point
  u5: vector
  G: point
bodies:
  base: {basis: [O, u1, u3], geometry: [[1], [0, 1]], mass: 3, centroid: [0.1],
         inertia: [0.05, 0.03, 0.03]}
  arm: {basis: [A, C, u3], geometry: [[0.6], [0, 1]], mass: 1.2, centroid: [0.3],
        inertia: [0.0005, 0.036, 0.036]}
  link67: {basis: [E, F, u4], geometry: [[0.5], [0, 1]], mass: 0.6, centroid: [0.25],
           inertia: [0.0003, 0.0125, 0.0125]}
  link89: {basis: [F, G, u5], geometry: [[0.3], [0, 1]], mass: 0.4, centroid: [0.15],
           inertia: [0.0002, 0.003, 0.003]}
dependent:
  u2: {body: base, vector: [0, 0, 1]}
  A: {body: base, point: [0, 0, 0.15]}
  Bp: {body: base, point: [0, 0, -0.15]}
assign:
  D: {point: [[1, C], [1, Bp], [-1, A]]}
  E: {point: [[1, C], [0.1, u2], [0.05, u1]]}
constraints:
  - {dot: [[F, E], [u3]]}
  - {dot: [[G, F], [u4]]}
problem:
  t_end: 0.3
  positions: {u3: [1, 0, 0], C: [0, 0.15, 0.6], u4: [1, 0, 0], F: [0, 0.75, 0.65],
              u5: [0, 1, 0], G: [0, 0.75, 0.95]}
  velocities: {C: [0.3, 0, 0], F: [0.5, 0.2, 0], G: [0.6, -0.3, 0.1]}
)";

NaturalInput robotWithMasses() {
  std::istringstream in(kRobotWithMasses);
  return readNaturalInput(in, "robot_with_masses.yaml");
}

/// max |a - b| / max |b| (b = 0: absolute).
double relativeError(const MatX& a, const MatX& b) {
  if (a.size() == 0) return 0.0;
  const double scale = b.cwiseAbs().maxCoeff();
  return (a - b).cwiseAbs().maxCoeff() / (scale > 0.0 ? scale : 1.0);
}

/// max |a - b| <= tol; prints the worst entry.
void checkAbs(const MatX& a, const MatX& b, double tol, const std::string& what, double& worst) {
  Eigen::Index i = 0, j = 0;
  const double e = (a - b).cwiseAbs().maxCoeff(&i, &j);
  worst = std::max(worst, e);
  BOOST_TEST(e <= tol, what << ": worst entry (" << i << ", " << j << ") " << a(i, j) << " vs "
                            << b(i, j) << ", |diff| " << e << " > " << tol);
}

VecX asVec(double x) {
  return VecX::Constant(1, x);
}

}  // namespace

BOOST_AUTO_TEST_CASE(dynamic_path_equals_padded_path_on_small_models) {
  test::Random rnd(20240611);
  for (const char* stem : {"mechanism0", "free_top", "rscr", "bar_double_pendulum"}) {
    const NaturalInput in = load(stem);
    const auto model = std::make_shared<const NaturalModel>(in.model);
    const Index n = model->nq, nc = model->nc;
    BOOST_TEST_REQUIRE(n <= kMaxPaddedNaturalCoordinates);
    const LagrangianSystem padded = makeNaturalLagrangianSystem(model);
    const LagrangianSystem dynamic = makeNaturalLagrangianSystemDynamic(model);
    BOOST_TEST(dynamic.nq == n);
    BOOST_TEST(dynamic.nc == nc);
    double worst = 0.0;
    for (int trial = 0; trial < 5; ++trial) {
      VecX q = in.problem.q0, v(n);
      for (Index i = 0; i < n; ++i) {
        q(i) += rnd.uniform(-0.3, 0.3);
        v(i) = rnd.uniform();
      }
      LagrangianFirstOrder p1, d1;
      LagrangianSecondOrder p2, d2;
      p1.resize(n, nc);
      d1.resize(n, nc);
      p2.resize(n, nc);
      d2.resize(n, nc);
      padded.evaluateFirst(q, v, p1);
      dynamic.evaluateFirst(q, v, d1);
      padded.evaluateSecond(q, v, p2);
      dynamic.evaluateSecond(q, v, d2);
      std::vector<std::pair<std::string, double>> errors = {
          {"L (first)", relativeError(asVec(d1.L), asVec(p1.L))},
          {"L_q (first)", relativeError(d1.L_q, p1.L_q)},
          {"L_v (first)", relativeError(d1.L_v, p1.L_v)},
          {"C (first)", relativeError(d1.C, p1.C)},
          {"C_q (first)", relativeError(d1.C_q, p1.C_q)},
          {"L", relativeError(asVec(d2.L), asVec(p2.L))},
          {"L_q", relativeError(d2.L_q, p2.L_q)},
          {"L_v", relativeError(d2.L_v, p2.L_v)},
          {"C", relativeError(d2.C, p2.C)},
          {"C_q", relativeError(d2.C_q, p2.C_q)},
          {"L_qq", relativeError(d2.L_qq, p2.L_qq)},
          {"L_qv", relativeError(d2.L_qv, p2.L_qv)},
          {"L_vv", relativeError(d2.L_vv, p2.L_vv)}};
      for (Index i = 0; i < nc; ++i) {
        const std::size_t s = static_cast<std::size_t>(i);
        errors.emplace_back("C_qq[" + std::to_string(i) + "]",
                            relativeError(d2.C_qq[s], p2.C_qq[s]));
      }
      for (const auto& [what, e] : errors) {
        BOOST_TEST(e < 1e-12, stem << ", trial " << trial << ", " << what << ": " << e);
        worst = std::max(worst, e);
      }
    }
    BOOST_TEST_MESSAGE(stem << " (nq " << n << "): dynamic vs padded, worst relative difference "
                            << worst);
  }
}

BOOST_AUTO_TEST_CASE(large_model_derivatives_match_central_differences) {
  const NaturalInput in = robotWithMasses();
  const auto model = std::make_shared<const NaturalModel>(in.model);
  const Index n = model->nq, nc = model->nc;
  BOOST_TEST_REQUIRE(n == 18);
  BOOST_TEST_REQUIRE(nc == 12);
  const LagrangianSystem sys = makeNaturalLagrangianSystem(model);  // the dynamic path
  // Central differences with step h err by h^2/6 |f'''| (truncation) plus about eps |f| / h
  // (rounding): 1.7e-11 and 2.2e-11 times the function's size for h = 1e-5 with O(1) m and
  // m/s coordinates. The tolerance allows 100 times their sum relative to each quantity's scale
  // (max(1, max |f|)): third derivatives over the robot's shortest lengths (0.1-0.3 m).
  const double h = 1e-5, eps = std::numeric_limits<double>::epsilon();
  const double rel_tol = 100.0 * (h * h / 6.0 + eps / h);
  test::Random rnd(20240612);
  double worst_first = 0.0, worst_second = 0.0;
  for (int trial = 0; trial < 3; ++trial) {
    VecX q = in.problem.q0, v(n);
    for (Index i = 0; i < n; ++i) {
      q(i) += rnd.uniform(-0.2, 0.2);
      v(i) = rnd.uniform();
    }
    LagrangianFirstOrder d1;
    LagrangianSecondOrder d2;
    d1.resize(n, nc);
    d2.resize(n, nc);
    sys.evaluateFirst(q, v, d1);
    sys.evaluateSecond(q, v, d2);
    double L0 = 0.0;
    VecX C0(nc);
    evaluateNaturalMechanism(*model, q, v, L0, C0);
    BOOST_TEST(std::abs(d1.L - L0) <= 1e-14 * std::max(1.0, std::abs(L0)));
    BOOST_TEST(std::abs(d2.L - L0) <= 1e-14 * std::max(1.0, std::abs(L0)));
    BOOST_TEST((d1.C - C0).cwiseAbs().maxCoeff() <= 1e-15);
    // Second-order evaluation's first-order part = the first-order evaluation.
    BOOST_TEST(relativeError(d2.L_q, d1.L_q) < 1e-14);
    BOOST_TEST(relativeError(d2.L_v, d1.L_v) < 1e-14);
    BOOST_TEST(relativeError(d2.C_q, d1.C_q) < 1e-14);
    // Columns of the first derivatives from L and C in doubles; columns of the second
    // derivatives from the AD gradients (the order below).
    MatX fd_Lq(1, n), fd_Lv(1, n), fd_Cq(nc, n), fd_Lqq(n, n), fd_Lvq(n, n), fd_Lvv(n, n);
    std::vector<MatX> fd_Cqq(static_cast<std::size_t>(nc), MatX(n, n));
    for (Index j = 0; j < 2 * n; ++j) {
      VecX qp = q, qm = q, vp = v, vm = v;
      (j < n ? qp(j) : vp(j - n)) += h;
      (j < n ? qm(j) : vm(j - n)) -= h;
      double Lp = 0.0, Lm = 0.0;
      VecX Cp(nc), Cm(nc);
      evaluateNaturalMechanism(*model, qp, vp, Lp, Cp);
      evaluateNaturalMechanism(*model, qm, vm, Lm, Cm);
      LagrangianFirstOrder gp, gm;
      gp.resize(n, nc);
      gm.resize(n, nc);
      sys.evaluateFirst(qp, vp, gp);
      sys.evaluateFirst(qm, vm, gm);
      if (j < n) {
        fd_Lq(0, j) = (Lp - Lm) / (2 * h);
        fd_Cq.col(j) = (Cp - Cm) / (2 * h);
        fd_Lqq.col(j) = (gp.L_q - gm.L_q) / (2 * h);
        fd_Lvq.col(j) = (gp.L_v - gm.L_v) / (2 * h);  // d2L/dv_i dq_j = L_qv(j, i)
        for (Index i = 0; i < nc; ++i)
          fd_Cqq[static_cast<std::size_t>(i)].col(j) =
              (gp.C_q.row(i) - gm.C_q.row(i)).transpose() / (2 * h);
      } else {
        fd_Lv(0, j - n) = (Lp - Lm) / (2 * h);
        fd_Lvv.col(j - n) = (gp.L_v - gm.L_v) / (2 * h);
      }
    }
    const double sL = std::max(1.0, std::abs(L0)), sC = std::max(1.0, C0.cwiseAbs().maxCoeff());
    const double sg = std::max({1.0, d1.L_q.cwiseAbs().maxCoeff(), d1.L_v.cwiseAbs().maxCoeff()});
    const double sCq = std::max(1.0, d1.C_q.cwiseAbs().maxCoeff());
    checkAbs(d1.L_q.transpose(), fd_Lq, rel_tol * sL, "L_q", worst_first);
    checkAbs(d1.L_v.transpose(), fd_Lv, rel_tol * sL, "L_v", worst_first);
    checkAbs(d1.C_q, fd_Cq, rel_tol * sC, "C_q", worst_first);
    checkAbs(d2.L_qq, fd_Lqq, rel_tol * sg, "L_qq", worst_second);
    checkAbs(d2.L_qv.transpose(), fd_Lvq, rel_tol * sg, "L_qv", worst_second);
    checkAbs(d2.L_vv, fd_Lvv, rel_tol * sg, "L_vv", worst_second);
    for (Index i = 0; i < nc; ++i)
      checkAbs(d2.C_qq[static_cast<std::size_t>(i)], fd_Cqq[static_cast<std::size_t>(i)],
               rel_tol * sCq, "C_qq[" + std::to_string(i) + "]", worst_second);
    // Hessians are symmetric.
    BOOST_TEST(relativeError(d2.L_qq, d2.L_qq.transpose()) < 1e-13);
    BOOST_TEST(relativeError(d2.L_vv, d2.L_vv.transpose()) < 1e-13);
  }
  BOOST_TEST_MESSAGE("robot with masses (nq " << n << "): worst |AD - central difference| first "
                                              << worst_first << ", second " << worst_second
                                              << " (tolerance " << rel_tol << " x scale)");
}

BOOST_AUTO_TEST_CASE(large_model_ida_run_conserves_energy) {
  const NaturalInput in = robotWithMasses();
  const LagrangianSystem sys =
      makeNaturalLagrangianSystem(std::make_shared<const NaturalModel>(in.model));
  LagrangianState s0;
  ConsistencyOptions copt;
  copt.fixed = in.problem.fixed;
  const Status st = computeConsistentLagrangianState(sys, in.problem.q0, in.problem.v0, copt, s0);
  BOOST_TEST_REQUIRE(st.ok(), st.message);
  LagrangianIdaOptions opt;
  opt.form = LagrangianForm::kStabilizedIndex2;
  opt.t_end = in.problem.t_end;
  opt.output_interval = 0.01;
  opt.rtol = 1e-8;
  opt.atol = 1e-11;
  const double E0 = computeLagrangianEnergy(sys, s0.q, s0.v);
  double dE = 0.0, travel = 0.0;
  const LagrangianRunResult r = integrateLagrangianIda(sys, s0, opt, [&](const LagrangianState& s) {
    dE = std::max(dE, std::abs(computeLagrangianEnergy(sys, s.q, s.v) - E0));
    travel = std::max(travel, (s.q - s0.q).cwiseAbs().maxCoeff());
    return true;
  });
  BOOST_TEST_REQUIRE(r.status.ok(), r.status.message);
  BOOST_TEST_MESSAGE("robot with masses, GGL to t = "
                     << opt.t_end << " s: " << r.stats.steps << " steps, "
                     << r.stats.jacobian_evaluations << " Jacobians, " << r.stats.wall_seconds
                     << " s; E " << E0 << " J, |dE| " << dE << " J, |C| "
                     << r.stats.max_position_drift << ", |C_q v| " << r.stats.max_velocity_drift
                     << ", max |q - q0| " << travel);
  BOOST_TEST(r.state.t == opt.t_end, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(travel > 0.05);  // it moves
  // GGL at rtol 1e-8 over a few hundred steps: the energy error stays near rtol |E|.
  BOOST_TEST(dE < 1e-7 * std::max(1.0, std::abs(E0)));
  BOOST_TEST(r.stats.max_position_drift < 1e-8);
  BOOST_TEST(r.stats.max_velocity_drift < 1e-7);
}
