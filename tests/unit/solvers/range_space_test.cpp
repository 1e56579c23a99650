#define BOOST_TEST_MODULE range_space
// The range-space KKT solve (solvers/range_space.hpp) against a dense LU (Eigen, partial
// pivoting) of the whole KKT matrix [M C_q^T; C_q 0], on random planar and spatial models (every
// joint type, centres of mass off the body frames, so the mass blocks change with q) and on a
// 60-link catenary chain, at random configurations; and its refusals: dependent rows, a mass
// block that is not positive definite, bodies coupled outside their blocks.
#include <Eigen/Dense>
#include <functional>
#include <string>

#include "assembly/assemble.hpp"
#include "dense_kkt.hpp"
#include "model/four_bar_lattice.hpp"
#include "model/generators.hpp"
#include "random_model.hpp"
#include "solvers/range_space.hpp"
#include "test_support.hpp"

using namespace catena;

namespace {

struct Kkt {
  SparseMatrixCSR M, Cq;
};

Kkt assembleAt(const Model& m, const AssemblyPlan& plan, const State& s) {
  Kkt k{makeBodyMatrix(plan), makeConstraintMatrix(plan)};
  assembleMass(m, plan, s.q, k.M);
  assembleConstraints(m, plan, s.q, s.t, nullptr, &k.Cq);
  return k;
}

/// Solves at `cases` random states with one solver (its cached mass inverses are reused where
/// the blocks did not change) and compares with the dense LU.
void compareWithDenseLu(test::Random& rnd, const Model& m, int cases) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  Kkt k = assembleAt(m, plan, initialState(m));
  RangeSpaceKkt solver(k.M, k.Cq, m.nv_body, massNonzero(m, plan));
  BOOST_TEST_REQUIRE(solver.applicable());
  for (int c = 0; c < cases; ++c) {
    const State s = test::randomState(rnd, m);
    k = assembleAt(m, plan, s);
    VecX f(m.nv), g(m.nc);
    for (Index i = 0; i < m.nv; ++i) f(i) = rnd.uniform(-1, 1);
    for (Index i = 0; i < m.nc; ++i) g(i) = rnd.uniform(-1, 1);
    const MatX A = test::denseKkt(k.M, k.Cq);
    VecX rhs(m.nv + m.nc);
    rhs << f, g;
    const Eigen::PartialPivLU<MatX> lu(A);
    const VecX ref = lu.solve(rhs);
    const double cond = 1.0 / lu.rcond();
    BOOST_TEST_REQUIRE(cond < 1e8, "condition number estimate " << cond);
    BOOST_TEST_REQUIRE(solver.factor(k.M, k.Cq).ok());
    VecX x, y;
    const Status st = solver.solve(f, g, x, y);
    BOOST_TEST_REQUIRE(st.ok(), st.message);
    VecX z(m.nv + m.nc);
    z << x, y;
    BOOST_TEST((z - ref).norm() <= 1e-15 * cond * ref.norm(),
               m.name << " case " << c << ": relative difference " << (z - ref).norm() / ref.norm()
                      << " from the dense LU (condition " << cond << ")");
  }
  BOOST_TEST(solver.stats().factorizations == cases);
  BOOST_TEST(solver.refinements() >= cases);  // at least one step per solve
}

}  // namespace

BOOST_AUTO_TEST_CASE(solves_the_kkt_system_of_random_models_to_round_off) {
  test::Random rnd(2611);
  for (int dim : {2, 3}) {
    // 20 bodies: the 7 (planar) or 14 (spatial) joints leave C_q with full row rank.
    const Model m = test::randomModel(rnd, dim, 20, true);
    compareWithDenseLu(rnd, m, 4);
  }
}

BOOST_AUTO_TEST_CASE(solves_the_kkt_system_of_a_chain_to_round_off) {
  test::Random rnd(2612);
  CatenaryChainOptions chain;
  chain.links = 60;
  compareWithDenseLu(rnd, buildCatenaryChain(chain), 3);
}

namespace {

/// factor() at m's initial state, after `spoil` changed the matrices (and, for a regular
/// model, after one factorization of the unspoiled ones, whose cached mass inverses the spoiled
/// blocks must not reuse): kSingular, with `named` in the message.
void checkRefusal(const Model& m, bool regular, const std::function<void(Kkt&)>& spoil,
                  const std::string& named) {
  const AssemblyPlan plan = buildAssemblyPlan(m);
  Kkt k = assembleAt(m, plan, initialState(m));
  RangeSpaceKkt solver(k.M, k.Cq, m.nv_body, massNonzero(m, plan));
  BOOST_TEST_REQUIRE(solver.applicable());
  if (regular) BOOST_TEST_REQUIRE(solver.factor(k.M, k.Cq).ok());
  spoil(k);
  const Status st = solver.factor(k.M, k.Cq);
  BOOST_TEST((st.code == Status::Code::kSingular), st.message);
  BOOST_TEST(st.message.find(named) != std::string::npos, st.message);
}

}  // namespace

BOOST_AUTO_TEST_CASE(refuses_dependent_rows) {
  // 14 joints on 3 spatial bodies: more rows than the 18 velocities.
  test::Random rnd(2613);
  const Model m = test::randomModel(rnd, 3, 3, false);
  BOOST_TEST_REQUIRE(m.nc > m.nv);
  checkRefusal(
      m, false, [](Kkt&) {}, "constraint row");
}

BOOST_AUTO_TEST_CASE(refuses_a_mass_block_that_is_not_positive_definite) {
  CatenaryChainOptions chain;
  chain.links = 4;
  const Model m = buildCatenaryChain(chain);
  // Body 2 massless: its block is zero.
  const int block = m.nv_body;
  checkRefusal(
      m, true,
      [block](Kkt& k) {
        for (int i = 2 * block; i < 3 * block; ++i)
          for (SparseMatrixCSR::InnerIterator it(k.M, i); it; ++it) it.valueRef() = 0.0;
      },
      "body 2");
}

BOOST_AUTO_TEST_CASE(does_not_apply_to_bodies_coupled_outside_their_blocks) {
  CatenaryChainOptions chain;
  chain.links = 4;
  const Model m = buildCatenaryChain(chain);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const SparseMatrixCSR M = makeBodyMatrix(plan), Cq = makeConstraintMatrix(plan);
  // The body pattern couples jointed bodies (K and K_c share it); flagged zero, those entries
  // are left out, unflagged they may hold anything.
  bool coupled = false;
  for (int i = 0; i < M.rows(); ++i)
    for (SparseMatrixCSR::InnerIterator it(M, i); it; ++it)
      coupled = coupled || it.col() / m.nv_body != i / m.nv_body;
  BOOST_TEST_REQUIRE(coupled);
  BOOST_TEST(!RangeSpaceKkt(M, Cq, m.nv_body).applicable());
  BOOST_TEST(RangeSpaceKkt(M, Cq, m.nv_body, massNonzero(m, plan)).applicable());
}

// A body in many joints makes its rows' block of S dense: a coupler merged over 100 cells
// (its 202 rows all paired) is left to the KKT matrix; the same lattice with a coupler per cell
// is not.
BOOST_AUTO_TEST_CASE(does_not_apply_where_s_would_fill_in) {
  for (const bool merged : {true, false}) {
    FourBarLatticeOptions o;
    o.cells = 100;
    o.merged_couplers = merged;
    const Model m = buildFourBarLattice(o);
    const AssemblyPlan plan = buildAssemblyPlan(m);
    const RangeSpaceKkt solver(makeBodyMatrix(plan), makeConstraintMatrix(plan), m.nv_body,
                               massNonzero(m, plan));
    BOOST_TEST(solver.applicable() == !merged, (merged ? "merged" : "per cell"));
  }
}
