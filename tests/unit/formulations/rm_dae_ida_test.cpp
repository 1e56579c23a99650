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
#include "rm_short_run.hpp"
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
  const MatX fd = test::newtonMatrixByDifferences(
      y, yp, c_j, 1e-6,
      [&](const VecX& y1, const VecX& yp1, VecX& F) { computeRmGglResidual(m, ws, y1, yp1, F); });
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
  const RmModel m = test::paperDoublePendulum();
  for (unsigned k = 0; k < 3; ++k) checkNewtonMatrix(m, 600 + k, true);
}

BOOST_AUTO_TEST_CASE(residual_vanishes_at_the_consistent_initial_state) {
  const RmModel m = test::paperDoublePendulum();
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
  RmIdaOptions o;
  const test::RmShortRun run = test::shortRmRun(o, integrateRmIda);
  const RmRunResult& r = run.result;
  BOOST_TEST(std::abs(r.state.t - 0.1) <= 1e-14);
  BOOST_TEST(run.energy_change <= 1e-8);
  BOOST_TEST(r.stats.max_drift.orthogonality <= 1e-9);
  o.t_end = -1.0;
  BOOST_TEST(!integrateRmIda(run.model, run.initial, o, nullptr).status.ok());
}
