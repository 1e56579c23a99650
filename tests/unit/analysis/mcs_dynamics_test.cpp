#define BOOST_TEST_MODULE mcs_dynamics
// The right-hand side of the MCS integrator (integrators/mcs_dynamics.hpp) against independent
// oracles, at consistent random states of the papers' mechanisms and of two rheonomic chains:
// - v = T u + Q1 pi reproduces the state's velocity (eqs. 9-11, with p' from C_t);
// - v' from the projected equations equals the acceleration of the KKT system
//   [M A_p^T; A_p 0] [v'; lambda_p] = [f; gamma_p] (dense LU), and so do the multipliers;
// - d/dt (C_q v + C_t) = 0 along (q (+) (tau v + tau^2/2 v'), v + tau v', t + tau) by central
//   differences of the assembled C_q and C_t only (checks gamma and p'', eq. 14), and
//   dC/dt = 0 along (q (+) tau v, t + tau) (checks C_t and p', eq. 11);
// - a chart whose origin is another configuration and whose basis is rotated gives the same v'
//   (the dynamics do not depend on T or on where the step started).
#include "integrators/mcs_dynamics.hpp"

#include <Eigen/LU>
#include <Eigen/QR>
#include <cmath>

#include "assembly/assemble.hpp"
#include "driven_chain.hpp"
#include "integrators/initial_state.hpp"
#include "io/yaml_loader.hpp"
#include "model/model_builder.hpp"
#include "model/state.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

/// A consistent state at time t near the model's initial one, with random velocities projected
/// onto C_q v + C_t = 0.
State randomState(const Model& m, const AssemblyPlan& plan, test::Random& rnd, double t) {
  State s = initialState(m);
  s.t = t;
  VecX dq(m.nv);
  for (Index i = 0; i < m.nv; ++i) dq(i) = rnd.uniform(-0.2, 0.2);
  applyVariation(m, dq, 1.0, s.q);
  for (Index i = 0; i < m.nv; ++i) s.v(i) = rnd.uniform(-1.0, 1.0);
  InitialStateResult r = assembleInitialState(m, plan, s);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  return r.state;
}

MatX denseJacobian(const Model& m, const AssemblyPlan& plan, const VecX& q, double t) {
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  assembleConstraints(m, plan, q, t, nullptr, &Cq);
  return MatX(Cq);
}

/// C_q v + C_t at (q, t).
VecX velocityResidual(const Model& m, const AssemblyPlan& plan, const VecX& q, const VecX& v,
                      double t) {
  VecX Ct(m.nc);
  assembleConstraintTimeDerivative(m, plan, q, t, Ct);
  return denseJacobian(m, plan, q, t) * v + Ct;
}

void checkModel(const Model& m, const std::string& what, unsigned seed) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  test::Random rnd(seed);
  McsWorkspace ws(m, plan);
  for (int trial = 0; trial < 3; ++trial) {
    const State s = randomState(m, plan, rnd, 0.13 + 0.4 * trial);
    const std::string tag = what + " trial " + std::to_string(trial);
    const MatX A = denseJacobian(m, plan, s.q, s.t);
    McsChart chart;
    chart.factors = factorTangent(A);
    chart.T = chart.factors.T;
    const Index r = chart.factors.rank, n = m.nv;
    const VecX u = chart.T.transpose() * s.v;

    VecX v;
    BOOST_REQUIRE(computeMcsVelocity(m, plan, chart, s.q, u, s.t, ws, v).ok());
    test::checkClose(v, s.v, 1e-11, tag + ": v = T u + Q1 p'");

    VecX vdot, udot, lambda;
    const Status st = computeMcsRates(m, plan, chart, s.q, u, s.t, ws, v, vdot, udot, &lambda);
    BOOST_REQUIRE_MESSAGE(st.ok(), st.message);
    // KKT oracle with the pivot rows (the others are redundant).
    SparseMatrixCSR Ms = makeBodyMatrix(plan);
    assembleMass(m, plan, s.q, Ms);
    VecX f(n), gamma(m.nc);
    assembleForces(m, plan, s.q, s.v, s.t, f);
    assembleGamma(m, plan, s.q, s.v, s.t, gamma);
    MatX K = MatX::Zero(n + r, n + r);
    VecX b(n + r);
    K.topLeftCorner(n, n) = MatX(Ms);
    b.head(n) = f;
    for (Index i = 0; i < r; ++i) {
      const Index row = chart.factors.pivot_rows[i];
      K.block(n + i, 0, 1, n) = A.row(row);
      K.block(0, n + i, n, 1) = A.row(row).transpose();
      b(n + i) = gamma(row);
    }
    const VecX x = K.fullPivLu().solve(b);
    test::checkClose(vdot, VecX(x.head(n)), 1e-10, tag + ": v' = KKT acceleration");
    VecX lambda_kkt = VecX::Zero(m.nc);
    for (Index i = 0; i < r; ++i) lambda_kkt(chart.factors.pivot_rows[i]) = x(n + i);
    test::checkClose(lambda, lambda_kkt, 1e-9, tag + ": lambda_p");
    test::checkClose(udot, VecX(chart.T.transpose() * vdot), 1e-12, tag + ": u' = T^T v'");

    // Central differences of the assembled constraint functions along the motion.
    const double eps = 1e-6;
    auto along = [&](double tau) {
      VecX q = s.q;
      applyVariation(m, VecX(tau * s.v + 0.5 * tau * tau * vdot), 1.0, q);
      return velocityResidual(m, plan, q, VecX(s.v + tau * vdot), s.t + tau);
    };
    const VecX dg = (along(eps) - along(-eps)) / (2.0 * eps);
    const double scale = A.cwiseAbs().maxCoeff() * std::max(1.0, vdot.cwiseAbs().maxCoeff());
    BOOST_TEST(dg.cwiseAbs().maxCoeff() < 1e-6 * scale,
               tag << ": d(C_q v + C_t)/dt = " << dg.cwiseAbs().maxCoeff());
    auto position = [&](double tau) {
      VecX q = s.q;
      applyVariation(m, VecX(tau * s.v), 1.0, q);
      VecX C(m.nc);
      assembleConstraints(m, plan, q, s.t + tau, &C, nullptr);
      return C;
    };
    const VecX dC = (position(eps) - position(-eps)) / (2.0 * eps);
    BOOST_TEST(dC.cwiseAbs().maxCoeff() < 1e-8 * std::max(1.0, s.v.cwiseAbs().maxCoeff()),
               tag << ": dC/dt = " << dC.cwiseAbs().maxCoeff());

    // Another chart: origin at a nearby consistent configuration, basis rotated in the tangent
    // space. u = T_k^T v names the same velocity; the accelerations must not change.
    State near = s;
    VecX dq(n);
    for (Index i = 0; i < n; ++i) dq(i) = rnd.uniform(-0.02, 0.02);
    applyVariation(m, dq, 1.0, near.q);
    InitialStateResult nr = assembleInitialState(m, plan, near);
    BOOST_REQUIRE(nr.status.ok());
    McsChart other;
    other.factors = factorTangent(denseJacobian(m, plan, nr.state.q, s.t));
    const Index fk = other.factors.T.cols();
    MatX G(fk, fk);
    for (Index i = 0; i < G.size(); ++i) G(i) = rnd.uniform();
    other.T = other.factors.T * Eigen::HouseholderQR<MatX>(G).householderQ();
    const VecX uk = other.T.transpose() * s.v;
    VecX v2, vdot2, udot2;
    BOOST_REQUIRE(computeMcsRates(m, plan, other, s.q, uk, s.t, ws, v2, vdot2, udot2).ok());
    test::checkClose(v2, s.v, 1e-10, tag + ": v in a displaced, rotated chart");
    test::checkClose(vdot2, vdot, 1e-9, tag + ": v' in a displaced, rotated chart");
    test::checkClose(udot2, VecX(other.T.transpose() * vdot), 1e-9,
                     tag + ": u' = T_k^T v' in a displaced chart");
  }
}

Model load(const std::string& name) {
  return loadMechanismFile(std::string(CATENA_SOURCE_DIR) + "/inputs/" + name + ".yaml").model;
}

}  // namespace

BOOST_AUTO_TEST_CASE(spatial_examples_of_the_projection_paper) {
  checkModel(load("spatial_pendulum"), "spatial pendulum", 1);
  checkModel(load("spatial_slider_crank"), "spatial slider-crank", 2);
  checkModel(load("spin_top"), "spin top", 3);
}

BOOST_AUTO_TEST_CASE(redundant_four_bars) {
  checkModel(load("modified_double_four_bar"), "modified double four-bar (m = n)", 4);
  checkModel(load("modified_triple_four_bar"), "modified triple four-bar (m > n)", 5);
  checkModel(load("modified_2x2_four_bar"), "modified 2x2 four-bar (f = 2)", 6);
}

BOOST_AUTO_TEST_CASE(rheonomic_chains) {
  checkModel(test::drivenChain(3), "driven chain 3D", 7);
  checkModel(test::drivenChain(2), "driven chain 2D", 8);
}
