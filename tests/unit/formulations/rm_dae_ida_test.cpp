#define BOOST_TEST_MODULE rm_dae_ida
// The GGL residual and its analytic Newton matrix dF/dy + c_j dF/dy'
// (formulations/rotation_matrix/rm_dae_ida.hpp) against central differences at seeded random
// y, y', c_j (orthogonal and non-orthogonal R), on random chains and the paper's double
// pendulum; and the residual at the consistent initial state of the double pendulum.
#include <cmath>

#include "formulations/rotation_matrix/rm_assembly.hpp"
#include "formulations/rotation_matrix/rm_dae_ida.hpp"
#include "formulations/rotation_matrix/rm_two_step.hpp"
#include "rm_random_model.hpp"
#include "test_support.hpp"

using namespace catena;
using namespace catena::rm;

namespace {

void checkNewtonMatrix(const RmModel& m, unsigned seed, bool orthogonal) {
  test::Random rnd(seed);
  const Index N = rmGglSize(m), n = m.n;
  const RmState s = test::randomRmState(rnd, m, orthogonal);
  VecX y(N), yp(N);
  for (Index k = 0; k < N; ++k) {
    y(k) = rnd.uniform();
    yp(k) = rnd.uniform();
  }
  y.head(n) = s.q;
  const double c_j = rnd.uniform(10.0, 1000.0);
  RmGglWorkspace ws(m);
  MatX J(N, N);
  computeRmGglJacobian(m, ws, y, c_j, J);
  MatX fd(N, N);
  VecX Fp(N), Fm(N);
  const double h = 1e-6;
  for (Index k = 0; k < N; ++k) {
    VecX y1 = y, y2 = y, yp1 = yp, yp2 = yp;
    y1(k) += h;
    y2(k) -= h;
    yp1(k) += c_j * h;  // along the BDF direction: dy' = c_j dy
    yp2(k) -= c_j * h;
    computeRmGglResidual(m, ws, y1, yp1, Fp);
    computeRmGglResidual(m, ws, y2, yp2, Fm);
    fd.col(k) = (Fp - Fm) / (2 * h);
  }
  test::checkClose(J, fd, 1e-7, "dF/dy + c_j dF/dy'");
}

}  // namespace

BOOST_AUTO_TEST_CASE(newton_matrix_matches_central_differences_on_random_chains) {
  test::Random rnd(31);
  for (unsigned k = 0; k < 6; ++k) {
    const RmModel m = test::randomRmChain(rnd, 3, k % 2 == 1);
    checkNewtonMatrix(m, 500 + k, k % 3 != 0);
  }
}

BOOST_AUTO_TEST_CASE(newton_matrix_matches_central_differences_on_the_double_pendulum) {
  const RmModel m = buildRmDoublePendulum(0.108, 0.20, 0.02, 0.01, M_PI / 9, M_PI / 18, 9.81);
  for (unsigned k = 0; k < 3; ++k) checkNewtonMatrix(m, 600 + k, true);
}

BOOST_AUTO_TEST_CASE(residual_vanishes_at_the_consistent_initial_state) {
  const RmModel m = buildRmDoublePendulum(0.108, 0.20, 0.02, 0.01, M_PI / 9, M_PI / 18, 9.81);
  const RmState s = initialRmState(m);
  VecX qdd, lambda;
  BOOST_REQUIRE(computeRmAccelerationsKkt(m, s.q, s.v, qdd, lambda).ok());
  const Index N = rmGglSize(m), n = m.n;
  VecX y = VecX::Zero(N), yp = VecX::Zero(N), F(N);
  y.head(n) = s.q;
  y.segment(n, n) = s.v;
  y.segment(2 * n, m.m) = lambda;
  yp.head(n) = s.v;
  yp.segment(n, n) = qdd;
  RmGglWorkspace ws(m);
  computeRmGglResidual(m, ws, y, yp, F);
  BOOST_TEST(F.cwiseAbs().maxCoeff() <= 1e-14);
}

// A short run of the IDA driver (also the leak check of its SUNDIALS objects under the
// sanitizers): the double pendulum for 0.1 s keeps its constraints and energy; bad options are
// reported, not thrown.
BOOST_AUTO_TEST_CASE(short_run_of_the_integrator) {
  const RmModel m = buildRmDoublePendulum(0.108, 0.20, 0.02, 0.01, M_PI / 9, M_PI / 18, 9.81);
  const RmState s0 = initialRmState(m);
  RmIdaOptions o;
  o.t_end = 0.1;
  o.output_interval = 0.05;
  int calls = 0;
  const RmRunResult r = integrateRmIda(m, s0, o, [&](const RmState&) { return ++calls > 0; });
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST(calls == 3);
  BOOST_TEST(std::abs(r.state.t - 0.1) <= 1e-14);
  const double E0 = computeRmEnergy(m, s0.q, s0.v).total();
  BOOST_TEST(std::abs(computeRmEnergy(m, r.state.q, r.state.v).total() - E0) <= 1e-8);
  BOOST_TEST(r.stats.max_drift.orthogonality <= 1e-9);
  o.t_end = -1.0;
  BOOST_TEST(!integrateRmIda(m, s0, o, nullptr).status.ok());
}
