#define BOOST_TEST_MODULE kkt_solves
// The index-1 integrators' accelerations (integrators/kkt_solves.hpp) on the planar double
// four-bar at crank angles from regular to next to its singular configuration (cranks along the
// ground, phi = 0), against a dense LU (Eigen, partial pivoting) of the whole KKT system
// [M C_q^T; C_q 0] [v'; lambda] = [f; gamma]: the range-space form answers where it is
// accurate, the KKT matrix (KLU) where it refuses, and either way the answer is the dense one
// to round-off of the system's condition (measured: 2e-18 times the dense LU's condition
// estimate, from 21 at pi/2 to 9e12 at 1e-6 rad; the range-space form answers down to 1e-5 rad).
#include <petscsys.h>

#include <Eigen/Dense>
#include <cmath>
#include <string>

#include "assembly/assemble.hpp"
#include "dense_kkt.hpp"
#include "integrators/kkt_solves.hpp"
#include "model/four_bar_lattice.hpp"
#include "model/generators.hpp"
#include "petsc_fixture.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

struct Solved {
  long fallbacks = 0;
  double difference = 0.0;  ///< relative to the dense LU's solution
  double condition = 0.0;   ///< the dense LU's estimate
};

/// KktSolves' accelerations at m's initial state, `calls` times with one object, against the
/// dense LU.
Solved solve(const Model& m, int calls = 1) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const State s = initialState(m);
  KktSolves kkt(m, plan, "kkt_test_");
  VecX vdot, lambda;
  for (int c = 0; c < calls; ++c) {
    const Status st = kkt.accelerations(s, vdot, lambda);
    BOOST_TEST_REQUIRE(st.ok(), st.message);
  }

  SparseMatrixCSR M = makeBodyMatrix(plan), Cq = makeConstraintMatrix(plan);
  assembleMass(m, plan, s.q, M);
  assembleConstraints(m, plan, s.q, s.t, nullptr, &Cq);
  VecX f(m.nv), gamma(m.nc);
  assembleForces(m, plan, s.q, s.v, s.t, f);
  assembleGamma(m, plan, s.q, s.v, s.t, gamma);
  const MatX A = test::denseKkt(M, Cq);
  VecX rhs(m.nv + m.nc), z(m.nv + m.nc);
  rhs << f, gamma;
  z << vdot, lambda;
  const Eigen::PartialPivLU<MatX> lu(A);
  const VecX ref = lu.solve(rhs);
  return {kkt.kktFallbacks(), (z - ref).norm() / ref.norm(), 1.0 / lu.rcond()};
}

Solved solveAt(double crank_angle) {
  FourBarLatticeOptions o;
  o.crank_angle = crank_angle;
  o.crank_rate = -1.0;
  return solve(buildFourBarLattice(o));
}

}  // namespace

BOOST_AUTO_TEST_CASE(accelerations_equal_the_dense_solution_from_regular_to_nearly_singular) {
  for (const double angle : {M_PI / 2, 1e-3, 1e-5, 1e-6}) {
    const Solved r = solveAt(angle);
    BOOST_TEST_MESSAGE("crank angle " << angle << " rad: condition " << r.condition
                                      << ", relative difference " << r.difference << ", "
                                      << r.fallbacks << " fallback(s) to KLU");
    BOOST_TEST(r.difference <= 1e-15 * r.condition,
               "crank angle " << angle << ": " << r.difference << " from the dense LU");
    // Regular: the range-space form answers; next to the singular configuration its pivots
    // fall below kRangeSpacePivot and the KKT matrix answers.
    if (angle == M_PI / 2) BOOST_TEST(r.fallbacks == 0);
    if (angle == 1e-6) BOOST_TEST(r.fallbacks == 1);
  }
}

// A body whose mass block is singular (a link without rotational inertia, its rotations held by
// the joints) is refused once, and the KKT matrix answers from then on.
BOOST_AUTO_TEST_CASE(a_singular_mass_block_is_refused_once) {
  CatenaryChainOptions chain;
  chain.links = 6;
  Model m = buildCatenaryChain(chain);
  m.bodies[2].inertia.setZero();
  const Solved r = solve(m, 3);
  BOOST_TEST(r.difference <= 1e-15 * r.condition, r.difference << " from the dense LU");
  BOOST_TEST(r.fallbacks == 1);
}

// PETSc options that choose the KKT solver keep the KKT matrix throughout: -PREFIXksp_type, and a
// -mat_klu_* option with or without the prefix (PETSc 3.18 reads those unprefixed, so the
// SaddlePointSolver they configure must be the one that answers).
BOOST_AUTO_TEST_CASE(petsc_solver_options_keep_the_kkt_matrix) {
  CatenaryChainOptions chain;
  chain.links = 6;
  const Model m = buildCatenaryChain(chain);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const auto solver = [&] { return KktSolves(m, plan, "kkt_test_").solver(); };
  BOOST_TEST(solver() == "range-space KKT solves");
  for (const char* option :
       {"-kkt_test_ksp_type", "-mat_klu_pivot_tol", "-kkt_test_mat_klu_pivot_tol"}) {
    const char* value =
        std::string(option).find("ksp_type") != std::string::npos ? "preonly" : "0.5";
    BOOST_REQUIRE(PetscOptionsSetValue(nullptr, option, value) == 0);
    BOOST_TEST(solver().rfind("KKT matrix, ", 0) == 0, option << ": " << solver());
    BOOST_REQUIRE(PetscOptionsClearValue(nullptr, option) == 0);
  }
  BOOST_TEST(solver() == "range-space KKT solves");
}
