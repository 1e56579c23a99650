#define BOOST_TEST_MODULE saddle_point
// The saddle-point solver (solvers/saddle_point.hpp) with and without AssemblyPlan::
// body_nonzero, on generalized-alpha's iteration matrix [b M + c D + K + K_c, C_q^T; C_q, 0] of
// a catenary chain (universal joints, a spherical end) at random configurations and multipliers,
// against a dense LU (Eigen, partial pivoting) of the same matrix: leaving out the entries
// flagged zero shrinks the factored matrix and leaves the solution as it was, to round-off
// (KLU's pivot tolerance 0.1; at its default 0.001 the solutions here lost two digits), through
// KLU directly and through PETSc (MUMPS). (Which
// entries may be left out is checked in assemble_test.)
#include <petscsys.h>

#include <Eigen/Dense>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "dense_kkt.hpp"
#include "model/generators.hpp"
#include "petsc_fixture.hpp"
#include "random_model.hpp"
#include "solvers/saddle_point.hpp"
#include "test_support.hpp"

using namespace catena;

BOOST_AUTO_TEST_CASE(left_out_zero_entries_change_nothing_but_the_size) {
  test::Random rnd(611);
  CatenaryChainOptions chain;
  chain.links = 8;
  const Model m = buildCatenaryChain(chain);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  SparseMatrixCSR S = makeBodyMatrix(plan), M = makeBodyMatrix(plan), K = makeBodyMatrix(plan),
                  D = makeBodyMatrix(plan), Kc = makeBodyMatrix(plan),
                  Cq = makeConstraintMatrix(plan);
  // The same through PETSc (MUMPS): the values are copied into PETSc's matrix, not KLU's.
  BOOST_REQUIRE(PetscOptionsSetValue(nullptr, "-mumps_pc_factor_mat_solver_type", "mumps") == 0);
  SaddlePointSolver full(S, Cq, ""), trimmed(S, Cq, "", plan.body_nonzero),
      mumps(S, Cq, "mumps_", plan.body_nonzero);
  BOOST_TEST(trimmed.nonZeros() < full.nonZeros());
  BOOST_TEST(mumps.package() == "mumps");
  for (int c = 0; c < 5; ++c) {
    const State s = test::randomState(rnd, m);
    assembleMass(m, plan, s.q, M);
    assembleForceJacobians(m, plan, s.q, s.v, s.t, nullptr, K, D);
    assembleConstraintStiffness(m, plan, s.q, s.t, s.lambda, Kc);
    assembleConstraints(m, plan, s.q, s.t, nullptr, &Cq);
    values(S) = 1e4 * values(M) + 1e2 * values(D) + values(K) + values(Kc);
    VecX f(m.nv), g(m.nc);
    for (Index i = 0; i < m.nv; ++i) f(i) = rnd.uniform(-1, 1);
    for (Index i = 0; i < m.nc; ++i) g(i) = rnd.uniform(-1, 1);
    // The constraint rows scaled as generalized-alpha scales them (the solutions are not).
    const double scale = constraintRowScale(S, Cq);
    const MatX A = test::denseKkt(S, Cq, scale);
    VecX rhs(m.nv + m.nc);
    rhs << f, scale * g;
    VecX ref = A.partialPivLu().solve(rhs);
    ref.tail(m.nc) *= scale;
    // Regular and well enough conditioned for the comparison below.
    const double cond = 1.0 / A.partialPivLu().rcond();
    BOOST_TEST_REQUIRE(cond < 1e6, "condition number estimate " << cond);
    for (SaddlePointSolver* solver : {&full, &trimmed, &mumps}) {
      const char* which = solver == &full ? "full" : solver == &trimmed ? "trimmed" : "mumps";
      solver->forgetPivots();  // fresh pivots: the accuracy of a factorization, not of reuse
      BOOST_TEST_REQUIRE(solver->factor(S, Cq, scale).ok(), which);
      VecX x, y;
      BOOST_TEST_REQUIRE(solver->solve(f, g, x, y).ok(), which);
      VecX z(m.nv + m.nc);
      z << x, y;
      BOOST_TEST((z - ref).norm() <= 1e-15 * cond * ref.norm(),
                 which << ": relative difference " << (z - ref).norm() / ref.norm()
                       << " from the dense LU");
    }
  }
}
