#define BOOST_TEST_MODULE redundant_rows
// Redundant constraints in the saddle-point integrators (issue 28, first step;
// mobility/independent_rows.hpp, integrators/redundant_rows.hpp). The modified double four-bar
// (two four-bars whose couplers are merged into one bar, the QRCP paper's section 3.3: 12 rows
// of rank 11) against the double four-bar with two couplers (14 rows, full rank), an independent
// formulation of the same motion: in a parallelogram motion the couplers translate, so one bar
// of 2 kg and two bars of 1 kg carry the same kinetic and potential energy, and the cranks turn
// alike. Before the singular (horizontal) configuration at t = 0.714 s.
#include <boost/test/unit_test.hpp>

#include <Eigen/LU>

#include <cmath>
#include <numbers>
#include <random>

#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "integrators/generalized_alpha.hpp"
#include "integrators/ida_dynamics.hpp"
#include "integrators/initial_state.hpp"
#include "mobility/constraint_rank.hpp"
#include "mobility/independent_rows.hpp"
#include "mobility/row_combinations.hpp"
#include "model/four_bar_lattice.hpp"
#include "model/model_builder.hpp"
#include "petsc_fixture.hpp"

using namespace catena;

namespace {

Model doubleFourBar(bool merged, double crank_angle = std::numbers::pi / 2) {
  FourBarLatticeOptions o;
  o.crank_angle = crank_angle;
  o.levels = 1;
  o.cells = 2;
  o.merged_couplers = merged;
  o.crank_rate = -1.0;
  return buildFourBarLattice(o);
}

State assembled(const Model& m, const AssemblyPlan& plan) {
  const InitialStateResult r = assembleInitialState(m, plan, initialState(m));
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  return r.state;
}

/// A merged lattice of 3 levels of 10 cells, leaning 0.1 rad: 27 redundant rows.
Model mergedLattice3x10() {
  FourBarLatticeOptions o = leaningFourBarLattice(3, 10, 0.1);
  o.merged_couplers = true;
  return buildFourBarLattice(o);
}

/// The angle of every crank at the end of a run.
std::vector<double> crankAngles(const Model& m, const State& s) {
  std::vector<double> out;
  for (const char* name : {"crank_0_0", "crank_0_1", "crank_0_2"}) {
    const Index b = m.findBody(name);
    BOOST_REQUIRE(b >= 0);
    out.push_back(s.q(m.qOffset(b) + 2));
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_redundant_row_is_left_out_and_the_rest_has_full_rank) {
  const Model m = doubleFourBar(true);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const State s = assembled(m, plan);
  BOOST_REQUIRE_EQUAL(m.nc, 12);
  const IndependentRows rows = independentRows(m, plan, s.q, s.t);
  BOOST_TEST(rows.dropped.size() == 1u);
  BOOST_TEST(rows.dropped_names.size() == 1u);
  BOOST_TEST(rows.model.nc == 11);
  BOOST_TEST(rows.kept.size() == 11u);
  for (std::size_t r = 0; r < rows.kept.size(); ++r) {
    BOOST_TEST(rows.kept[r] != rows.dropped[0]);
    if (r > 0) BOOST_TEST(rows.kept[r] > rows.kept[r - 1]);
    // The kept row is the same constraint in both models.
    BOOST_TEST(rows.model.rowName(static_cast<Index>(r)) == m.rowName(rows.kept[r]));
  }
  const AssemblyPlan reduced_plan = buildAssemblyPlan(rows.model);
  BOOST_TEST(analyzeConstraintRank(rows.model, reduced_plan, s.q, s.t).rank == 11);
  BOOST_TEST(withoutRows(m, {}).model.nc == m.nc);
  BOOST_CHECK_THROW(withoutRows(m, {12}), Error);
}

// The reported multipliers: the same generalized constraint force C_q^T lambda as the reduced
// model's, with the smallest norm (the reduced ones padded with zero are one other solution).
BOOST_AUTO_TEST_CASE(minimum_norm_multipliers_keep_the_constraint_force) {
  const Model m = doubleFourBar(true);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const State s = assembled(m, plan);
  const IndependentRows rows = independentRows(m, plan, s.q, s.t);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-10.0, 10.0);
  VecX lambda_r(rows.model.nc);
  for (Index i = 0; i < lambda_r.size(); ++i) lambda_r[i] = u(rng);
  const VecX lambda = minimumNormMultipliers(m, plan, rows, s.q, s.t, lambda_r);
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  assembleConstraints(m, plan, s.q, s.t, nullptr, &Cq);
  VecX padded = VecX::Zero(m.nc);
  for (std::size_t r = 0; r < rows.kept.size(); ++r) padded[rows.kept[r]] = lambda_r[r];
  const VecX force = Cq.transpose() * padded;
  const double error = (VecX(Cq.transpose() * lambda) - force).norm();
  BOOST_TEST(error <= 1e-12 * force.norm(), "C_q^T lambda off by " << error);
  BOOST_TEST(lambda.norm() <= padded.norm() * (1.0 + 1e-12));
  // Minimum norm: no component along the null space of C_q^T (the self-stress of the
  // redundant loop), which the padded set has.
  const MatX null = MatX(MatX(Cq).transpose()).fullPivLu().kernel();
  BOOST_REQUIRE_EQUAL(null.cols(), 1);
  const VecX w = null.col(0).normalized();
  BOOST_TEST(std::abs(w.dot(lambda)) <= 1e-12 * lambda.norm(),
             "along the null space " << w.dot(lambda));
  BOOST_TEST(std::abs(w.dot(padded)) > 1e-3 * padded.norm());
  // The sparse path (above kDenseRowLimit coordinates; forced here) gives the same set.
  const VecX sparse = minimumNormMultipliers(m, plan, rows, s.q, s.t, lambda_r, 0);
  BOOST_TEST((sparse - lambda).norm() <= 1e-12 * lambda.norm(),
             "sparse and dense differ by " << (sparse - lambda).norm());
}

// Both saddle-point integrators run the over-constrained model to 0.5 s and turn its cranks as
// the double four-bar with two couplers does.
BOOST_AUTO_TEST_CASE(integrators_move_the_merged_model_as_the_unmerged_one) {
  const Model merged = doubleFourBar(true), plain = doubleFourBar(false);
  const AssemblyPlan pm = buildAssemblyPlan(merged), pp = buildAssemblyPlan(plain);
  const State sm = assembled(merged, pm), sp = assembled(plain, pp);
  IdaOptions ida;
  ida.t_end = 0.5;
  ida.rtol = 1e-10;
  ida.atol = 1e-12;
  GeneralizedAlphaOptions ga;
  ga.t_end = 0.5;
  ga.error_tolerance = 1e-8;
  const DynamicsResult runs[2][2] = {
      {integrateIda(merged, pm, sm, ida, {}), integrateIda(plain, pp, sp, ida, {})},
      {integrateGeneralizedAlpha(merged, pm, sm, ga, {}),
       integrateGeneralizedAlpha(plain, pp, sp, ga, {})}};
  for (const auto& run : runs) {
    BOOST_REQUIRE_MESSAGE(run[0].status.ok(), run[0].status.message);
    BOOST_REQUIRE_MESSAGE(run[1].status.ok(), run[1].status.message);
    BOOST_TEST(run[0].redundant_rows.size() == 1u);
    BOOST_TEST(run[1].redundant_rows.empty());
    BOOST_TEST(run[0].state.lambda.size() == merged.nc);
    const std::vector<double> a = crankAngles(merged, run[0].state);
    const std::vector<double> b = crankAngles(plain, run[1].state);
    BOOST_TEST(std::abs(a[0] - std::numbers::pi / 2) > 0.1);  // the cranks turned
    for (std::size_t k = 0; k < a.size(); ++k)
      BOOST_TEST(std::abs(a[k] - b[k]) <= 1e-6, "crank " << k << ": " << a[k] << " vs " << b[k]);
  }
}

// A start at a singular configuration (the double four-bar with its bars horizontal: rank 12 of
// 14) is not a redundancy: the two rows the QRCP drops there are independent once the cranks
// turn. The run must not report the motion of the mechanism without them as a success: where
// they drift it stops, or (IDA: integrators/singular_passage.hpp) generalized-alpha with every
// row tries to take over from the start (it also starts with rows left out, and stops where they
// drift). A run that succeeds must be the whole mechanism's: every row satisfied, the cranks
// parallel (the motion from the crossing with the parallelogram's velocity stays on the
// parallelogram branch), and the passage reported; one that fails names the rows.
BOOST_AUTO_TEST_CASE(a_singular_start_is_not_taken_for_redundancy) {
  const Model m = doubleFourBar(false, 0.0);
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const State s = assembled(m, plan);
  BOOST_REQUIRE_EQUAL(analyzeConstraintRank(m, plan, s.q, s.t).rank, 12);
  IdaOptions ida;
  ida.t_end = 0.5;
  ida.output_interval = 0.01;
  GeneralizedAlphaOptions ga;
  ga.t_end = 0.5;
  for (const DynamicsResult& r : {DynamicsResult(integrateIda(m, plan, s, ida, {})),
                                  integrateGeneralizedAlpha(m, plan, s, ga, {})}) {
    BOOST_TEST_MESSAGE(r.method << " (" << r.redundant_rows.size() << " rows left out, "
                                << r.passages.size() << " passages): " << r.status.message);
    if (r.status.ok()) {
      BOOST_TEST(!r.passages.empty(), r.method);
      BOOST_TEST(r.state.t == ida.t_end);
      VecX C(m.nc);
      assembleConstraints(m, plan, r.state.q, r.state.t, &C, nullptr);
      BOOST_TEST(C.cwiseAbs().maxCoeff() < 1e-8);
      const std::vector<double> a = crankAngles(m, r.state);
      BOOST_TEST(std::abs(a[0]) > 0.1);  // the cranks turned
      BOOST_TEST(std::abs(a[1] - a[0]) < 1e-6);
      BOOST_TEST(std::abs(a[2] - a[0]) < 1e-6);
      continue;
    }
    if (r.redundant_rows.empty()) continue;  // refused at t0 as before: also not a success
    BOOST_TEST(r.status.message.find("no longer satisfied") != std::string::npos, r.status.message);
    BOOST_TEST(r.worst_rows.size() >= 1u);
    BOOST_TEST(r.state.t < ida.t_end);
  }
}

// Above the dense limit (3000 velocity coordinates) the rows are chosen by the block-wise rank
// (here forced at a small size: a merged lattice of 3 levels of 10 cells, one redundant row per
// level and cell but one): as many rows as the dense QRCP, and the rest has full rank.
BOOST_AUTO_TEST_CASE(the_blockwise_selection_leaves_independent_rows) {
  const Model m = mergedLattice3x10();
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const State s = assembled(m, plan);
  const IndependentRows dense = independentRows(m, plan, s.q, s.t);
  const IndependentRows blockwise = independentRows(m, plan, s.q, s.t, 0);
  BOOST_TEST(dense.dropped.size() == static_cast<std::size_t>(3 * 9));
  BOOST_TEST(blockwise.dropped.size() == dense.dropped.size());
  const AssemblyPlan reduced = buildAssemblyPlan(blockwise.model);
  BOOST_TEST(analyzeConstraintRank(blockwise.model, reduced, s.q, s.t).rank == blockwise.model.nc);
  // Its minimum-norm multipliers, sparse and dense, for the 27 rows left out.
  VecX lambda_r(blockwise.model.nc);
  for (Index i = 0; i < lambda_r.size(); ++i) lambda_r[i] = std::sin(1.0 + i);
  const VecX dense_set = minimumNormMultipliers(m, plan, blockwise, s.q, s.t, lambda_r);
  const VecX sparse_set = minimumNormMultipliers(m, plan, blockwise, s.q, s.t, lambda_r, 0);
  BOOST_TEST((sparse_set - dense_set).norm() <= 1e-10 * dense_set.norm(),
             "sparse and dense differ by " << (sparse_set - dense_set).norm());
}

// The rows left out as combinations of the kept ones: their supports (a few rows of their own
// loop) found on the body-joint graph at the selection, the values solved on them alone; the same
// combinations as a dense least-squares solve on every kept row, on the constraint manifold and
// 1e-9 off it (a state as an integrator leaves it). A support that no longer represents its
// row is found again.
BOOST_AUTO_TEST_CASE(the_rows_left_out_are_combined_on_their_own_loops) {
  const Model m = mergedLattice3x10();
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const State s = assembled(m, plan);
  const IndependentRows rows = independentRows(m, plan, s.q, s.t, 0);
  BOOST_REQUIRE_EQUAL(rows.dropped.size(), 27u);
  BOOST_REQUIRE_EQUAL(rows.supports.size(), 27u);
  // Found on loops of a few bodies, every one.
  std::size_t largest_support = 0, empty = 0;
  for (const auto& support : rows.supports) {
    largest_support = std::max(largest_support, support.size());
    empty += support.empty();
  }
  BOOST_TEST(empty == 0u);
  // A support is every kept row of its loop (the cranks between two couplers and the ears
  // that close it), a few bodies' rows whatever the lattice's size.
  BOOST_TEST(largest_support <= 32u, largest_support << " of " << rows.kept.size());
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const double off : {0.0, 1e-9}) {
    VecX q = s.q;
    for (Index i = 0; i < q.size(); ++i) q[i] += off * u(rng);
    SparseMatrixCSR Cq = makeConstraintMatrix(plan);
    assembleConstraints(m, plan, q, s.t, nullptr, &Cq);
    const MatX dense = MatX(Cq);
    MatX kept_rows(rows.kept.size(), dense.cols()), dropped_rows(rows.dropped.size(), dense.cols());
    for (std::size_t k = 0; k < rows.kept.size(); ++k) kept_rows.row(k) = dense.row(rows.kept[k]);
    for (std::size_t j = 0; j < rows.dropped.size(); ++j)
      dropped_rows.row(j) = dense.row(rows.dropped[j]);
    const MatX reference =
        kept_rows.transpose().colPivHouseholderQr().solve(MatX(dropped_rows.transpose()));
    // A support cut to one row no longer represents its row: found again.
    RowSupports one_short = rows.supports;
    one_short[0].resize(1);
    const RowCombinations reused =
        combinationsOfKeptRows(Cq, rows.kept, rows.dropped, &rows.supports);
    const RowCombinations found = combinationsOfKeptRows(Cq, rows.kept, rows.dropped);
    const RowCombinations mended = combinationsOfKeptRows(Cq, rows.kept, rows.dropped, &one_short);
    BOOST_TEST(reused.reused == 27);
    BOOST_TEST(found.found == 27);
    BOOST_TEST(found.unclean == 0);
    BOOST_TEST(mended.reused == 26);
    BOOST_TEST(mended.found == 1);
    for (const RowCombinations* r : {&reused, &found, &mended}) {
      const double difference = (MatX(r->c) - reference).norm();
      BOOST_TEST(difference <= (1e-10 + 10 * off) * reference.norm(),
                 "off " << off << ": differ from the dense solve by " << difference);
      // Each represents its row: C_K^T c_j = C_d^T to round-off on the manifold.
      const MatX misfit = kept_rows.transpose() * MatX(r->c) - dropped_rows.transpose();
      BOOST_TEST(misfit.norm() <= (off == 0.0 ? 1e-13 : 1e-7) * dropped_rows.norm(),
                 "off " << off << ": misfit " << misfit.norm());
    }
  }
}

// The supports are found once, at the start of a run, and must hold along the motion. At
// vertical cranks the x rows of a four-bar's hinges carry none of a redundant row's combination
// (cos 90 deg), at any other angle they do: a support cut to the coefficients of the start sent
// every row of a spinning 30 x 30 lattice to the whole-matrix solve at every output (hand run,
// 2026-11-27: 15x the cost per step).
BOOST_AUTO_TEST_CASE(supports_found_at_vertical_cranks_hold_at_other_angles) {
  auto lattice = [](double angle) {
    FourBarLatticeOptions o;
    o.levels = 3;
    o.cells = 10;
    o.merged_couplers = true;
    o.crank_angle = angle;
    return buildFourBarLattice(o);
  };
  const Model vertical = lattice(std::numbers::pi / 2), turned = lattice(1.2);
  const AssemblyPlan plan = buildAssemblyPlan(vertical), turned_plan = buildAssemblyPlan(turned);
  const State s = assembled(vertical, plan);
  const IndependentRows rows = independentRows(vertical, plan, s.q, s.t, 0);
  BOOST_REQUIRE_EQUAL(rows.dropped.size(), 27u);
  const State t = assembled(turned, turned_plan);
  SparseMatrixCSR Cq = makeConstraintMatrix(turned_plan);
  assembleConstraints(turned, turned_plan, t.q, t.t, nullptr, &Cq);
  const RowCombinations c = combinationsOfKeptRows(Cq, rows.kept, rows.dropped, &rows.supports);
  BOOST_TEST(c.reused == 27);
  BOOST_TEST(c.found == 0);
}

// Issue 28, item 4: the double four-bar in 3D with full revolutes about z (35 rows of rank 29:
// every closed loop repeats its out-of-plane rows, 6 in all) moves as the planar model:
// generalized-alpha and IDA leave the 6 rows out and turn the cranks as the planar runs do, the
// bodies stay in their plane, up to 0.6 s (before the singular configuration at 0.714 s).
BOOST_AUTO_TEST_CASE(the_spatial_double_four_bar_moves_as_the_planar_one) {
  FourBarLatticeOptions o;
  o.crank_rate = -1.0;
  ModelBuilder builder(3, "double_four_bar_3d");
  builder.setGravity(Vec3(0.0, -9.81, 0.0));
  addFourBarLattice(builder, o);
  const Model spatial = builder.finalize();
  const Model planar = doubleFourBar(false);
  BOOST_REQUIRE_EQUAL(spatial.nc, 35);
  const AssemblyPlan ps = buildAssemblyPlan(spatial), pp = buildAssemblyPlan(planar);
  const State s3 = assembled(spatial, ps), s2 = assembled(planar, pp);
  BOOST_TEST(analyzeConstraintRank(spatial, ps, s3.q, s3.t).rank == 29);
  IdaOptions ida;
  ida.t_end = 0.6;
  ida.rtol = 1e-10;
  ida.atol = 1e-12;
  GeneralizedAlphaOptions ga;
  ga.t_end = 0.6;
  ga.error_tolerance = 1e-8;
  const DynamicsResult runs[2][2] = {
      {integrateIda(spatial, ps, s3, ida, {}), integrateIda(planar, pp, s2, ida, {})},
      {integrateGeneralizedAlpha(spatial, ps, s3, ga, {}),
       integrateGeneralizedAlpha(planar, pp, s2, ga, {})}};
  for (const auto& run : runs) {
    BOOST_REQUIRE_MESSAGE(run[0].status.ok(), run[0].status.message);
    BOOST_REQUIRE_MESSAGE(run[1].status.ok(), run[1].status.message);
    BOOST_TEST(run[0].redundant_rows.size() == 6u);
    double worst = 0.0, off_plane = 0.0;
    for (const char* name : {"crank_0_0", "crank_0_1", "crank_0_2", "coupler_0_0", "coupler_0_1"}) {
      const Index b3 = spatial.findBody(name), b2 = planar.findBody(name);
      const VecX& q3 = run[0].state.q;
      const VecX& q2 = run[1].state.q;
      const Quat rho(q3(spatial.qOffset(b3) + 3), q3(spatial.qOffset(b3) + 4),
                     q3(spatial.qOffset(b3) + 5), q3(spatial.qOffset(b3) + 6));
      const Vec3 axis = rho.normalized().toRotationMatrix().col(2);
      const double angle = std::atan2(rho.z(), rho.w()) * 2.0;  // about z while in the plane
      worst = std::max(worst, std::abs(q3(spatial.qOffset(b3)) - q2(planar.qOffset(b2))));
      worst = std::max(worst, std::abs(q3(spatial.qOffset(b3) + 1) - q2(planar.qOffset(b2) + 1)));
      worst = std::max(worst, std::abs(std::remainder(angle - q2(planar.qOffset(b2) + 2),
                                                      2.0 * std::numbers::pi)));
      off_plane = std::max(
          {off_plane, std::abs(q3(spatial.qOffset(b3) + 2)), (axis - Vec3::UnitZ()).norm()});
    }
    BOOST_TEST(worst <= 1e-6, run[0].method << ": the spatial run is " << worst << " off");
    BOOST_TEST(off_plane <= 1e-8, run[0].method << ": out of the plane by " << off_plane);
  }
}

// A singular start that is not a redundancy (a point mass hinged at its centre: its rotation
// carries no inertia) keeps its failure, and the diagnosis that withIndependentRows now gives
// in the integrators' place says why.
BOOST_AUTO_TEST_CASE(a_massless_motion_is_diagnosed_not_reduced) {
  ModelBuilder b(2, "spinning_point");
  Body body;
  body.name = "point";
  body.mass = 1.0;  // inertia zero: a point mass
  b.addBody(body);
  Marker centre;
  centre.name = "point/centre";
  centre.body = 0;
  b.addMarker(centre);
  Marker origin;
  origin.name = "ground/origin";
  origin.body = kGround;
  b.addMarker(origin);
  Joint hinge;
  hinge.name = "hinge";
  hinge.type = JointType::kRevolute;
  hinge.marker1 = 0;
  hinge.marker2 = 1;
  b.addJoint(hinge);
  const Model m = b.finalize();
  const AssemblyPlan plan = buildAssemblyPlan(m);
  const State s = assembled(m, plan);
  IdaOptions ida;
  ida.t_end = 0.1;
  GeneralizedAlphaOptions ga;
  ga.t_end = 0.1;
  for (const DynamicsResult& r : {DynamicsResult(integrateIda(m, plan, s, ida, {})),
                                  integrateGeneralizedAlpha(m, plan, s, ga, {})}) {
    BOOST_TEST(!r.status.ok(), r.method);
    BOOST_TEST(r.redundant_rows.empty());
    BOOST_TEST(r.status.message.find("carries no mass") != std::string::npos, r.status.message);
  }
}
