#define BOOST_TEST_MODULE rm_two_step
// The paper's two-step elimination (formulations/rotation_matrix/rm_two_step.hpp) against the
// full KKT system at seeded random configurations (orthogonal R, arbitrary velocities), open and
// closed chains; step 2's matrix S against central differences of the joint accelerations in the
// joint multipliers, and its symmetry; the projection onto C = 0, C_q v = 0.
#include <Eigen/Eigenvalues>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "formulations/rotation_matrix/rm_assembly.hpp"
#include "formulations/rotation_matrix/rm_two_step.hpp"
#include "rm_random_model.hpp"
#include "rm_short_run.hpp"
#include "test_support.hpp"

using namespace catena;
using namespace catena::rm;

namespace {

void checkAgainstKkt(const RmModel& m, unsigned seed) {
  test::Random rnd(seed);
  const RmState s = test::randomRmState(rnd, m);
  RmTwoStepWorkspace ws(m);
  VecX qdd, lambda, qdd_kkt, lambda_kkt;
  const Status st = computeRmAccelerationsTwoStep(m, s.q, s.v, ws, qdd, &lambda);
  BOOST_REQUIRE_MESSAGE(st.ok(), st.message);
  BOOST_REQUIRE(computeRmAccelerationsKkt(m, s.q, s.v, qdd_kkt, lambda_kkt).ok());
  test::checkClose(qdd, qdd_kkt, 1e-9, "q'' two-step vs KKT");
  test::checkClose(lambda, lambda_kkt, 1e-9, "multipliers two-step vs KKT");
}

}  // namespace

BOOST_AUTO_TEST_CASE(two_step_equals_kkt_on_open_chains) {
  test::Random rnd(21);
  for (unsigned k = 0; k < 10; ++k) checkAgainstKkt(test::randomRmChain(rnd, 3), 300 + k);
}

BOOST_AUTO_TEST_CASE(two_step_equals_kkt_on_closed_chains) {
  test::Random rnd(22);
  for (unsigned k = 0; k < 10; ++k) checkAgainstKkt(test::randomRmChain(rnd, 4, true), 400 + k);
}

BOOST_AUTO_TEST_CASE(step_two_matrix_matches_central_differences) {
  test::Random rnd(23);
  for (unsigned k = 0; k < 5; ++k) {
    const RmModel m = test::randomRmChain(rnd, 3, k % 2 == 1);
    const RmState s = test::randomRmState(rnd, m);
    RmTwoStepWorkspace ws(m);
    computeRmJointSchurMatrix(m, s.q, ws);
    const MatX S = ws.S;
    MatX Cq;
    assembleRmConstraints(m, s.q, nullptr, &Cq);
    const MatX CJ = Cq.bottomRows(m.m_joints);
    VecX lambda_joints(m.m_joints);
    for (Index i = 0; i < m.m_joints; ++i) lambda_joints(i) = rnd.uniform(-10, 10);
    const double h = 1e-4;
    MatX fd(m.m_joints, m.m_joints);
    VecX qp, qm;
    for (Index c = 0; c < m.m_joints; ++c) {
      VecX lp = lambda_joints, lm = lambda_joints;
      lp(c) += h;
      lm(c) -= h;
      computeRmAccelerationsForJointMultipliers(m, s.q, s.v, lp, ws, qp);
      computeRmAccelerationsForJointMultipliers(m, s.q, s.v, lm, ws, qm);
      fd.col(c) = CJ * (qp - qm) / (2 * h);
    }
    test::checkClose(S, fd, 1e-7, "S = C_J,q dq''/dlambda_J");
    test::checkClose(S, MatX(S.transpose()), 1e-10, "S symmetric");
    // The joint force is -C_J,q^T lambda_J: S = -C_J,q Mbar C_J,q^T is negative definite.
    BOOST_TEST(Eigen::SelfAdjointEigenSolver<MatX>(S).eigenvalues().maxCoeff() < 0.0);
  }
}

BOOST_AUTO_TEST_CASE(projection_restores_the_constraints) {
  test::Random rnd(24);
  const RmModel m = test::randomRmChain(rnd, 3);
  // A consistent state: the chain's reference configuration moved to a random rigid pose is not
  // consistent with random joint points, so build it by projection from a perturbed start and
  // check the result.
  RmState s = test::randomRmState(rnd, m, false);
  RmTwoStepWorkspace ws(m);
  const Status st = projectRmState(m, ws, s.q, s.v, 1e-12, 50);
  BOOST_REQUIRE_MESSAGE(st.ok(), st.message);
  const RmDrift d = computeRmDrift(m, s.q, s.v);
  BOOST_TEST(d.orthogonality <= 1e-12);
  BOOST_TEST(d.joints <= 1e-12 * m.length_scale);
  BOOST_TEST(d.velocity <= 1e-12);
  // Projecting a consistent state changes nothing beyond round-off.
  const RmState again = s;
  BOOST_REQUIRE(projectRmState(m, ws, s.q, s.v, 1e-12).ok());
  test::checkClose(s.q, again.q, 1e-14, "q unchanged");
  test::checkClose(s.v, again.v, 1e-12, "v unchanged");
}

// A short run of the ARKODE driver (also the leak check of its SUNDIALS objects under the
// sanitizers): the double pendulum for 0.1 s keeps its constraints and energy; bad options and
// an observer that stops are reported, not thrown.
BOOST_AUTO_TEST_CASE(short_run_of_the_integrator) {
  RmTwoStepOptions o;
  const test::RmShortRun run = test::shortRmRun(o, integrateRmTwoStep);
  const RmModel& m = run.model;
  const RmState& s0 = run.initial;
  const RmRunResult& r = run.result;
  BOOST_TEST(r.state.t == 0.1);
  BOOST_TEST(run.energy_change <= 1e-9);
  BOOST_TEST(r.stats.max_drift.orthogonality <= 1e-9);
  o.t_end = 0.0;
  BOOST_TEST(!integrateRmTwoStep(m, s0, o, nullptr).status.ok());
  o.t_end = 0.1;
  const RmRunResult stopped = integrateRmTwoStep(m, s0, o, [](const RmState&) { return false; });
  BOOST_TEST(stopped.status.ok());
  BOOST_TEST(stopped.state.t == 0.0);
}
