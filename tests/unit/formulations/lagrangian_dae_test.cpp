#define BOOST_TEST_MODULE lagrangian_dae
// The momentum-form Euler-Lagrange DAE (formulations/lagrangian/lagrangian_dae.hpp): the
// AD-formed Newton matrix dF/dy + c_j dF/dy' against central differences of the residual along
// the BDF direction (dy' = c_j dy), index-3 and stabilized index-2, at seeded random y, y', c_j
// on every example; the consistent initial state (projection, KKT) against the residual and
// the planar pendulum's closed-form multiplier; the "fixed" coordinates of the projection; the
// energy function; and the refusal of wrong sizes.
#include <cmath>

#include "formulations/lagrangian/lagrangian_dae.hpp"
#include "lagrangian_examples.hpp"
#include "test_support.hpp"

using namespace catena;
using namespace catena::lagrangian;

namespace {

void checkNewtonMatrix(const LagrangianSystem& sys, LagrangianForm form, unsigned seed) {
  test::Random rnd(seed);
  const LagrangianDaeLayout ly(sys, form);
  const Index N = ly.size();
  LagrangianDaeWorkspace ws(sys);
  for (int trial = 0; trial < 2; ++trial) {
    VecX y(N), yp(N);
    for (Index k = 0; k < N; ++k) {
      y(k) = rnd.uniform(0.3, 1.5) * (rnd.uniform() < 0 ? -1.0 : 1.0);
      yp(k) = rnd.uniform();
    }
    const double c_j = rnd.uniform(10.0, 1000.0);
    MatX J(N, N);
    computeLagrangianDaeJacobian(sys, ly, ws, y, c_j, J);
    const MatX fd = test::newtonMatrixByDifferences(
        y, yp, c_j, 1e-6, [&](const VecX& y1, const VecX& yp1, VecX& F) {
          computeLagrangianDaeResidual(sys, ly, ws, y1, yp1, F);
        });
    test::checkClose(J, fd, 1e-7,
                     sys.name + (ly.stabilized() ? " (GGL)" : " (index 3)") + ": Newton matrix");
  }
}

/// Residual at the consistent point with y' = (v, vdot, pdot, 0[, 0]).
VecX residualAt(const LagrangianSystem& sys, LagrangianForm form, const LagrangianState& s) {
  const LagrangianDaeLayout ly(sys, form);
  LagrangianDaeWorkspace ws(sys);
  const Index n = ly.n, m = ly.m, N = ly.size();
  VecX y = VecX::Zero(N), yp = VecX::Zero(N), F(N);
  y.segment(ly.q(), n) = s.q;
  y.segment(ly.v(), n) = s.v;
  y.segment(ly.p(), n) = s.p;
  y.segment(ly.lambda(), m) = s.lambda;
  yp.segment(ly.q(), n) = s.v;
  yp.segment(ly.v(), n) = s.vdot;
  yp.segment(ly.p(), n) = s.pdot;
  computeLagrangianDaeResidual(sys, ly, ws, y, yp, F);
  return F;
}

}  // namespace

BOOST_AUTO_TEST_CASE(newton_matrix_matches_central_differences_on_every_example) {
  unsigned seed = 100;
  for (const LagrangianSystem& sys : test::lagrangianExamples())
    for (LagrangianForm form : {LagrangianForm::kIndex3, LagrangianForm::kStabilizedIndex2})
      checkNewtonMatrix(sys, form, seed++);
}

BOOST_AUTO_TEST_CASE(consistent_state_satisfies_the_dae_on_every_example) {
  test::Random rnd(7);
  for (const LagrangianSystem& sys : test::lagrangianExamples()) {
    VecX q(sys.nq), v(sys.nq);
    for (Index i = 0; i < sys.nq; ++i) {
      q(i) = rnd.uniform(0.3, 1.0);
      v(i) = rnd.uniform();
    }
    LagrangianState s;
    const Status st = computeConsistentLagrangianState(sys, q, v, {}, s);
    BOOST_TEST_REQUIRE(st.ok(), sys.name << ": " << st.message);
    for (LagrangianForm form : {LagrangianForm::kIndex3, LagrangianForm::kStabilizedIndex2}) {
      const VecX F = residualAt(sys, form, s);
      BOOST_TEST(F.cwiseAbs().maxCoeff() <= 1e-10, sys.name << ": |F| = " << F.transpose());
    }
  }
}

BOOST_AUTO_TEST_CASE(planar_pendulum_multiplier_is_the_closed_form) {
  // m a + C_q^T lambda = f with C_q = 2 r^T: lambda = m (g cos(theta) + l omega^2) / (2 l).
  const double m = 1.3, l = 0.8, g = 9.81, theta = 0.7, omega = 1.9;
  const LagrangianSystem sys =
      makeLagrangianSystem(examples::PointPendulum<2>{m, l, g}, "planar pendulum");
  const Vec2 r = l * Vec2(std::sin(theta), -std::cos(theta));
  const Vec2 rd = l * omega * Vec2(std::cos(theta), std::sin(theta));
  LagrangianState s;
  BOOST_TEST_REQUIRE(computeConsistentLagrangianState(sys, 1.01 * r, rd, {}, s).ok());
  test::checkClose(s.q, r, 1e-13, "projected position");
  BOOST_TEST(std::abs(s.lambda(0) - m * (g * std::cos(theta) + l * omega * omega) / (2 * l)) <=
             1e-12);
  // Tangential acceleration -g sin(theta) along (cos, sin).
  BOOST_TEST(std::abs(s.vdot.dot(Vec2(std::cos(theta), std::sin(theta))) + g * std::sin(theta)) <=
             1e-12);
  BOOST_TEST(std::abs(computeLagrangianEnergy(sys, s.q, s.v) -
                      (0.5 * m * s.v.squaredNorm() + m * g * s.q(1))) <= 1e-12);
}

BOOST_AUTO_TEST_CASE(fixed_coordinates_stay_in_the_projection) {
  // Mechanism0 with A_x fixed (the paper's "fixedpositions: {Ax, B}").
  const LagrangianSystem sys = makeLagrangianSystem(examples::Mechanism0{}, "Mechanism0");
  VecX q(4), v(4);
  q << 0.5, -1.7, 0.6, -2.8;
  v << 1.0, 0.3, 0.0, 0.0;
  ConsistencyOptions opt;
  opt.fixed = {true, false, true, true};
  LagrangianState s;
  const Status st = computeConsistentLagrangianState(sys, q, v, opt, s);
  BOOST_TEST_REQUIRE(st.ok(), st.message);
  BOOST_TEST(s.q(0) == 0.5);
  BOOST_TEST(s.q(2) == 0.6);
  BOOST_TEST(s.q(3) == -2.8);
  BOOST_TEST(std::abs(s.q(1) + std::sqrt(4.0 - 0.25)) <= 1e-13);
  BOOST_TEST(s.v(0) == 1.0);
  BOOST_TEST(std::abs(s.q.head<2>().dot(s.v.head<2>())) <= 1e-13);
}

BOOST_AUTO_TEST_CASE(wrong_sizes_are_refused) {
  const LagrangianSystem sys = makeLagrangianSystem(examples::FreeTop{}, "free top");
  LagrangianState s;
  const Status st = computeConsistentLagrangianState(sys, VecX::Zero(5), VecX::Zero(6), {}, s);
  BOOST_TEST((st.code == Status::Code::kInvalidInput));
  BOOST_TEST(st.message.find("6 entries") != std::string::npos);
}
