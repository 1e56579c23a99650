#define BOOST_TEST_MODULE initial_state
// Assembly of consistent initial states: minimum-norm Newton corrections that keep fixed
// coordinates, redundant but consistent constraints, a clear failure for incompatible joints,
// the velocity projection, and minimum-norm steps on dependent rows (next to a singular
// configuration of a merged lattice).
#include "integrators/initial_state.hpp"

#include <Eigen/QR>

#include "assembly/assemble.hpp"
#include "model/four_bar_lattice.hpp"
#include "model/generators.hpp"
#include "solvers/sparse_qr.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

VecX residual(const Model& m, const State& s) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  VecX C(m.nc);
  assembleConstraints(m, plan, s.q, s.t, &C, nullptr);
  return C;
}

State perturbed(const Model& m, unsigned seed, double size) {
  test::Random rnd(seed);
  State s = initialState(m);
  VecX dq(m.nv);
  for (Index i = 0; i < m.nv; ++i) dq(i) = rnd.uniform();
  applyVariation(m, dq, size, s.q);
  for (Index i = 0; i < m.nv; ++i) s.v(i) = rnd.uniform();
  return s;
}

Model lattice(bool merged, bool fix_first_crank) {
  FourBarLatticeOptions o;
  o.merged_couplers = merged;
  o.crank_angle = 1.2;
  ModelBuilder b(2, "lattice");
  addFourBarLattice(b, o);
  Model m = b.finalize();
  if (fix_first_crank) m.bodies[0].fixed = 0b100;  // keep crank_0_0's angle
  return m;
}

}  // namespace

BOOST_AUTO_TEST_CASE(assembles_a_perturbed_chain) {
  CatenaryChainOptions o;
  o.links = 10;
  const Model m = buildCatenaryChain(o);
  const State start = perturbed(m, 1, 0.02);
  BOOST_TEST(residual(m, start).cwiseAbs().maxCoeff() > 1e-3);
  const InitialStateResult r = assembleInitialState(m, buildAssemblyPlan(m), start);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST(residual(m, r.state).cwiseAbs().maxCoeff() < 1e-11);
  BOOST_TEST(r.rank == m.nc);
  BOOST_TEST(r.position_history.size() <= 8u);  // quadratic convergence
}

BOOST_AUTO_TEST_CASE(fixed_coordinates_are_kept) {
  const Model m = lattice(false, true);
  const State start = perturbed(m, 2, 0.05);
  const InitialStateResult r = assembleInitialState(m, buildAssemblyPlan(m), start);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST(r.state.q(2) == start.q(2));  // the fixed angle, bitwise
  BOOST_TEST(residual(m, r.state).cwiseAbs().maxCoeff() < 1e-11);
}

// The modified double four-bar has 12 rows of rank 11 (QRCP paper, section 3.3).
BOOST_AUTO_TEST_CASE(redundant_consistent_constraints_assemble) {
  const Model m = lattice(true, false);
  const InitialStateResult r = assembleInitialState(m, buildAssemblyPlan(m), perturbed(m, 3, 0.05));
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST(residual(m, r.state).cwiseAbs().maxCoeff() < 1e-11);
  BOOST_TEST(r.rank == 11);
  BOOST_TEST(r.rank_deficiency == 1);
}

// Two fix joints holding one body at two different places: no solution, and the report says
// which rows and what rank.
BOOST_AUTO_TEST_CASE(incompatible_joints_fail_with_a_report) {
  ModelBuilder b(3, "incompatible");
  Body body;
  body.name = "block";
  body.mass = 1.0;
  body.inertia = Mat3::Identity();
  const Index k = b.addBody(body);
  for (int i = 0; i < 2; ++i) {
    Joint j;
    j.name = "weld_" + std::to_string(i);
    j.type = JointType::kFix;
    j.marker1 = b.addMarker({j.name + "/block", k, Vec3::Zero(), Quat::Identity()});
    j.marker2 = b.addMarker({j.name + "/ground", kGround, Vec3(i, 0, 0), Quat::Identity()});
    b.addJoint(j);
  }
  const Model m = b.finalize();
  InitialStateOptions o;
  o.max_iterations = 10;
  const InitialStateResult r = assembleInitialState(m, buildAssemblyPlan(m), initialState(m), o);
  BOOST_TEST(!r.status.ok());
  BOOST_TEST(r.status.message.find("rank 6 of 12") != std::string::npos, r.status.message);
  BOOST_REQUIRE(!r.worst_rows.empty());
  BOOST_TEST(r.worst_rows[0].find("row x") != std::string::npos, r.worst_rows[0]);
}

BOOST_AUTO_TEST_CASE(velocities_become_consistent_and_stay_if_they_are) {
  const Model m = lattice(false, false);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const InitialStateResult r = assembleInitialState(m, plan, perturbed(m, 4, 0.05));
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  assembleConstraints(m, plan, r.state.q, 0.0, nullptr, &Cq);
  BOOST_TEST((Cq * r.state.v).cwiseAbs().maxCoeff() < 1e-12);
  // A consistent start is left alone.
  const InitialStateResult again = assembleInitialState(m, plan, r.state);
  BOOST_REQUIRE(again.status.ok());
  test::checkClose(again.state.v, r.state.v, 1e-13, "consistent velocities unchanged");
}

// solveMinimumNorm on a tall, rank-deficient matrix (more rows than columns, rows that repeat
// combinations of others, a null space): the minimum-norm solution, as a complete orthogonal
// decomposition gives it. SuiteSparseQR's min2norm alone returns a basic solution there.
BOOST_AUTO_TEST_CASE(the_minimum_norm_solve_leaves_dependent_rows_out) {
  test::Random rnd(31);
  const int rank = 6, m = 12, n = 8;
  MatX U(m, rank), V(n, rank);
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < rank; ++k) U(i, k) = rnd.uniform();
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < rank; ++k) V(j, k) = rnd.uniform();
  const MatX dense = U * V.transpose();
  const SparseMatrixCSR A = dense.sparseView();
  VecX x0(n);
  for (int j = 0; j < n; ++j) x0(j) = rnd.uniform();
  const VecX b = dense * x0;
  const MinimumNormSolution s = solveMinimumNorm(A, b);
  const VecX reference = dense.completeOrthogonalDecomposition().solve(b);
  BOOST_TEST(s.rank == rank);
  test::checkClose(s.x, reference, 1e-10 * reference.norm(), "minimum-norm solution");
}

// A consistent state of a merged lattice next to its singular configuration (cranks 0.12 rad
// from horizontal, 9 redundant rows) with the drift of an integration (1e-11 m, 5e-8 m/s) is
// left where it is. The basic solutions of dependent rows moved q by 4.5e-3 and v by 0.37 there
// (a singular passage's bridge started from such a state, 2026-11-27).
BOOST_AUTO_TEST_CASE(a_drifted_state_next_to_a_crossing_stays_put) {
  FourBarLatticeOptions o;
  o.levels = 3;
  o.cells = 4;
  o.merged_couplers = true;
  o.crank_angle = 0.12;
  o.crank_rate = -1.0;
  const Model m = buildFourBarLattice(o);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const InitialStateResult start = assembleInitialState(m, plan, initialState(m));
  BOOST_REQUIRE_MESSAGE(start.status.ok(), start.status.message);
  BOOST_REQUIRE_EQUAL(start.rank_deficiency, 9);
  test::Random rnd(37);
  State drifted = start.state;
  for (Index i = 0; i < m.nq; ++i) drifted.q(i) += 1e-11 * rnd.uniform();
  for (Index i = 0; i < m.nv; ++i) drifted.v(i) += 5e-8 * rnd.uniform();
  const InitialStateResult r = assembleInitialState(m, plan, drifted);
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  BOOST_TEST((r.state.q - drifted.q).cwiseAbs().maxCoeff() < 1e-9);
  BOOST_TEST((r.state.v - drifted.v).cwiseAbs().maxCoeff() < 1e-6);
}
